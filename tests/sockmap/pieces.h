/* SPDX-License-Identifier: GPL-2.0 */
/* The stream checker's own interfaces between its files (check.h). */
#ifndef SOCKMAP_PIECES_H
#define SOCKMAP_PIECES_H

/* Bytes a piece that ran too far may hold of the next one. */
#define OVERRUN		16
/* The farthest a run too far's bytes are looked for past its piece. */
#define OVERRUN_REACH	0x100000	/* 1 MiB */

/* The word index whose bytes are x (stream_byte()). */
__u64 unmix(__u64 x);
bool anchor(const struct side *s, size_t p, __u64 end, __u64 *at);
size_t run_len(const struct side *s, size_t p, __u64 o, __u64 end,
	       size_t max);
struct piece *piece_add(struct check *c, struct side *s, size_t k);
void claim(struct check *c, const struct piece *pc);
void cut(struct check *c, struct side *s, __u64 end);
void place(struct check *c, struct side *s, size_t k, __u64 end);
bool shift(struct check *c, struct side *s, size_t k, __u64 end, int depth);
void shift_head(struct check *c, struct side *s, size_t k);

#endif
