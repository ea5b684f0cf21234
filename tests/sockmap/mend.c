// SPDX-License-Identifier: GPL-2.0
/*
 * Pieces that ran too far, or began too early, by bytes the stream has
 * there by chance (one in 256 at each cut): their bytes handed back to
 * where they fit free (pieces.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pieces.h"

/* Do t bytes from offset from fit free at offset to? */
static bool fits_free(const struct check *c, __u64 from, __u64 to, size_t t)
{
	size_t j;

	for (j = 0; j < t; j++)
		if (c->count[to + j] || stream_byte(from + j) != stream_byte(to + j))
			return false;
	return true;
}

/* Move the last t bytes of s's piece k to offset to: onto piece k + 1 or apart. */
static void move_tail(struct check *c, struct side *s, size_t k, size_t t,
		      __u64 to)
{
	struct piece *P = &s->pieces[k], *Q;
	size_t j;

	for (j = 0; j < t; j++) {
		c->count[P->at + P->len - t + j]--;
		c->count[to + j]++;
	}
	P->len -= t;
	Q = k + 1 < s->npieces ? &s->pieces[k + 1] : NULL;
	if (Q && Q->placed && to + t == Q->at) {
		Q->at -= t;
		Q->p -= t;
		Q->len += t;
		return;
	}
	Q = piece_add(c, s, k + 1);
	if (!Q)
		return;
	P = &s->pieces[k];
	Q->at = to;
	Q->p = P->p + P->len;
	Q->len = t;
	Q->placed = true;
}

/* Free offset o, held as the last byte of a piece that ran too far. */
static bool free_tail(struct check *c, __u64 o, __u64 end, int depth);

/*
 * s's piece k ran too far: its last bytes are held by another side too and
 * fit free between it and the side's next piece, where they go (onto the
 * next piece, if they fit just before it).  A byte just before the next
 * piece that the last byte of a piece run too far holds is freed first.
 */
bool shift(struct check *c, struct side *s, size_t k, __u64 end, int depth)
{
	struct piece *P = &s->pieces[k];
	__u64 pe, hi, g;
	size_t t;

	if (!P->placed)
		return false;
	pe = P->at + P->len;
	hi = k + 1 < s->npieces && s->pieces[k + 1].placed ?
	     s->pieces[k + 1].at : end;
	if (hi <= pe)
		return false;
	if (hi - pe > OVERRUN_REACH)
		hi = pe + OVERRUN_REACH;
	for (t = 0; t < OVERRUN && t + 1 < P->len && c->count[pe - 1 - t] >= 2; t++)
		;
	if (t && c->count[hi - 1] == 1 && depth > 0 &&
	    stream_byte(pe - 1) == stream_byte(hi - 1))
		free_tail(c, hi - 1, end, depth - 1);
	for (; t > 0; t--) {
		if (fits_free(c, pe - t, hi - t, t)) {
			move_tail(c, s, k, t, hi - t);
			return true;
		}
		for (g = pe; g + t <= hi; g++)
			if (fits_free(c, pe - t, g, t)) {
				move_tail(c, s, k, t, g);
				return true;
			}
	}
	return false;
}

static bool free_tail(struct check *c, __u64 o, __u64 end, int depth)
{
	struct side *s;
	size_t k;
	int i;

	for (i = 0; i < c->nsides; i++)
		for (s = &c->sides[i], k = 0; k < s->npieces; k++)
			if (s->pieces[k].placed && s->pieces[k].len > 1 &&
			    s->pieces[k].at + s->pieces[k].len == o + 1) {
				c->count[o]++;	/* held twice while it moves */
				shift(c, s, k, end, depth);
				c->count[o]--;
				return c->count[o] == 0;
			}
	return false;
}

/* Move the first t bytes of s's piece k to offset to: onto piece k - 1 or apart. */
static void move_head(struct check *c, struct side *s, size_t k, size_t t,
		      __u64 to)
{
	struct piece *Q = &s->pieces[k], *P;
	size_t j;

	for (j = 0; j < t; j++) {
		c->count[Q->at + j]--;
		c->count[to + j]++;
	}
	Q->at += t;
	Q->p += t;
	Q->len -= t;
	P = k > 0 ? &s->pieces[k - 1] : NULL;
	if (P && P->placed && P->at + P->len == to) {
		P->len += t;
		return;
	}
	P = piece_add(c, s, k);
	if (!P)
		return;
	Q = &s->pieces[k + 1];
	P->at = to;
	P->p = Q->p - t;
	P->len = t;
	P->placed = true;
}

/* The same for a piece that began too early: its first bytes go back. */
void shift_head(struct check *c, struct side *s, size_t k)
{
	struct piece *Q = &s->pieces[k];
	__u64 lo = 0, g;
	size_t t, i;

	if (!Q->placed)
		return;
	for (i = k; i-- > 0;)
		if (s->pieces[i].placed) {
			lo = s->pieces[i].at + s->pieces[i].len;
			break;
		}
	if (lo >= Q->at)
		return;
	if (Q->at - lo > OVERRUN_REACH)
		lo = Q->at - OVERRUN_REACH;
	for (t = 0; t < OVERRUN && t + 1 < Q->len && c->count[Q->at + t] >= 2; t++)
		;
	for (; t > 0; t--) {
		if (fits_free(c, Q->at, lo, t)) {
			move_head(c, s, k, t, lo);
			return;
		}
		for (g = Q->at - t; g + 1 > lo; g--)
			if (fits_free(c, Q->at, g, t)) {
				move_head(c, s, k, t, g);
				return;
			}
	}
}

