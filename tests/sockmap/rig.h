/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host tests of the sockmap test's checker (check_test.c, track_test.c):
 * a flow of total records read on the vsock side S and the unix side U.
 */
#ifndef SOCKMAP_RIG_H
#define SOCKMAP_RIG_H

#include "check.h"

struct rig {
	struct flow f;
	struct check c;
	struct side s[2];
	__u32 total;
};

#define S	0
#define U	1

/* A flow of total records whose first state allows the sides allowed. */
struct rig *rig_new(__u32 total, unsigned char allowed);
void rig_free(struct rig *r);
/* Side i reads stream bytes [o, o + n), in reads of at most max (4096). */
void give_by(struct rig *r, int i, __u64 o, size_t n, size_t max);
void give(struct rig *r, int i, __u64 o, size_t n);
/* A small PRNG, so that every run splits the same way (xorshift64). */
__u64 rnd(__u64 *x);

#endif
