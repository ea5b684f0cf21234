// SPDX-License-Identifier: GPL-2.0
/* The host tests' flow and sides (rig.h). */
#include <stdlib.h>

#include "rig.h"

struct rig *rig_new(__u32 total, unsigned char allowed)
{
	struct rig *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->f.eb = calloc(total + 1, sizeof(__u32));
	r->c.seen = calloc(total + 1, 1);
	r->f.sides[0] = allowed;
	r->c.f = &r->f;
	r->s[S].name = "vsock";
	r->s[S].bit = SIDE_S;
	r->s[U].name = "unix";
	r->s[U].bit = SIDE_U;
	r->total = total;
	return r;
}

void rig_free(struct rig *r)
{
	side_free(&r->s[S]);
	side_free(&r->s[U]);
	free(r->f.eb);
	free(r->c.seen);
	free(r->c.hits);
	free(r);
}

void give_by(struct rig *r, int i, __u64 o, size_t n, size_t max)
{
	unsigned char b[4096];
	size_t k;

	if (max > sizeof(b))
		max = sizeof(b);
	for (; n; o += k, n -= k) {
		k = n < max ? n : max;
		stream_fill(b, o, k);
		side_feed(&r->c, &r->s[i], b, k);
	}
}

void give(struct rig *r, int i, __u64 o, size_t n)
{
	give_by(r, i, o, n, 4096);
}

__u64 rnd(__u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}
