// SPDX-License-Identifier: GPL-2.0
/*
 * The cut of a side's bytes into pieces (pieces.h): anchored where 8 of
 * them, read as a word, unmix to a word index that the bytes around fit;
 * the shorter runs between placed where they fit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pieces.h"

/*
 * The stream offset of s's bytes from p, from a whole word among their
 * first 15 that the bytes before it fit too; false when none does.
 */
bool anchor(const struct side *s, size_t p, __u64 end, __u64 *at)
{
	unsigned int a, i;
	__u64 w, idx;

	for (a = 0; a < 8 && p + a + 8 <= s->bytes; a++) {
		for (w = 0, i = 0; i < 8; i++)
			w |= (__u64)s->data[p + a + i] << (8 * i);
		idx = unmix(w);
		if (idx >= end / 8 || idx * 8 < a)
			continue;
		if (run_len(s, p, idx * 8 - a, end, a + 8) == a + 8) {
			*at = idx * 8 - a;
			return true;
		}
	}
	return false;
}

/* A piece before s's piece k (k == npieces: at the end). */
struct piece *piece_add(struct check *c, struct side *s, size_t k)
{
	struct piece *n;

	if (s->npieces == s->pieces_cap) {
		size_t cap = s->pieces_cap ? 2 * s->pieces_cap : 256;

		n = realloc(s->pieces, cap * sizeof(*n));
		if (!n) {
			violation(c, "%s: no memory for %zu pieces", s->name, cap);
			return NULL;
		}
		s->pieces = n;
		s->pieces_cap = cap;
	}
	memmove(s->pieces + k + 1, s->pieces + k,
		(s->npieces - k) * sizeof(*s->pieces));
	s->npieces++;
	return memset(s->pieces + k, 0, sizeof(*s->pieces));
}

/* Cut s into anchored pieces and the runs between them still to place. */
void cut(struct check *c, struct side *s, __u64 end)
{
	struct piece *pc;
	size_t p = 0, q;
	__u64 at;

	s->npieces = 0;
	while (p < s->bytes) {
		pc = piece_add(c, s, s->npieces);
		if (!pc)
			return;
		pc->p = p;
		if (anchor(s, p, end, &at)) {
			pc->at = at;
			pc->len = run_len(s, p, at, end, s->bytes - p);
			pc->placed = true;
		} else {
			for (q = p + 1; q < s->bytes && !anchor(s, q, end, &at); q++)
				;
			pc->len = q - p;
		}
		p += pc->len;
	}
}

void claim(struct check *c, const struct piece *pc)
{
	__u64 o;

	for (o = pc->at; o < pc->at + pc->len; o++)
		if (c->count[o] < 255)
			c->count[o]++;
}

/*
 * The longest match of pc in [lo, hi) on bytes no piece holds, but for its
 * first held bytes (another piece's last ones, run too far).
 */
static size_t best_fit(struct check *c, const struct side *s,
		       const struct piece *pc, __u64 lo, __u64 hi, __u64 end,
		       size_t held, __u64 *at)
{
	size_t best = 0, n, j;
	__u64 o;

	for (o = lo; o < hi && best < pc->len; o++) {
		n = run_len(s, pc->p, o, end, pc->len);
		for (j = held; j < n; j++)
			if (c->count[o + j])
				break;
		if (j < n)
			n = j;
		if (n > best) {
			best = n;
			*at = o;
		}
	}
	return best;
}

/* Does pc fit whole at o, bytes [o + from, o + to) free? */
static bool fits_at(const struct check *c, const struct side *s,
		    const struct piece *pc, __u64 o, __u64 end, size_t from,
		    size_t to)
{
	size_t j;

	if (o + pc->len > end || run_len(s, pc->p, o, end, pc->len) < pc->len)
		return false;
	for (j = from; j < to; j++)
		if (c->count[o + j])
			return false;
	return true;
}

/*
 * The longest part of pc from its start that fits in [lo, hi) over the
 * last bytes of a piece R that ran too far, on free bytes past R's end,
 * or whole over the first bytes of one that began too early, on free
 * bytes before it; 0 if none.
 */
static size_t over_piece(struct check *c, const struct side *s,
			 const struct piece *pc, __u64 lo, __u64 hi, __u64 end,
			 __u64 *at)
{
	const struct piece *R;
	size_t k, h, n, j, best = 0;
	__u64 o;
	int i;

	for (i = 0; i < c->nsides; i++)
		for (k = 0; k < c->sides[i].npieces; k++) {
			R = &c->sides[i].pieces[k];
			for (h = 1; R->placed && h < R->len && h <= OVERRUN && h <= pc->len; h++) {
				o = R->at + R->len - h;
				n = o >= lo && o < hi ? run_len(s, pc->p, o, end, pc->len) : 0;
				for (j = h; j < n && !c->count[o + j]; j++)
					;
				if (n >= h && j > best) {
					best = j;
					*at = o;
				}
				o = R->at + h - pc->len;
				if (R->at + h >= pc->len && o >= lo && o < hi && best < pc->len &&
				    fits_at(c, s, pc, o, end, 0, pc->len - h)) {
					best = pc->len;
					*at = o;
				}
			}
		}
	return best;
}

/* The stream offsets between the placed pieces around s's piece k. */
static void window(const struct side *s, size_t k, __u64 end, __u64 *lo,
		   __u64 *hi)
{
	size_t i;

	*lo = 0;
	*hi = end;
	for (i = k; i-- > 0;)
		if (s->pieces[i].placed) {
			*lo = s->pieces[i].at + s->pieces[i].len;
			break;
		}
	for (i = k + 1; i < s->npieces; i++)
		if (s->pieces[i].placed) {
			*hi = s->pieces[i].at;
			break;
		}
	if (*lo > *hi) {
		*lo = 0;
		*hi = end;
	}
}

/*
 * Place s's piece k where it fits between the side's pieces around it:
 * whole on free bytes, else whole over a piece's last bytes, else its
 * longest part on free bytes, else free bytes anywhere, else over bytes
 * held (again).  What does not fit becomes a piece of its own.
 */
void place(struct check *c, struct side *s, size_t k, __u64 end)
{
	struct piece *pc = &s->pieces[k], *rest;
	__u64 lo, hi, at = 0, over;
	size_t n;

	window(s, k, end, &lo, &hi);
	n = best_fit(c, s, pc, lo, hi, end, 0, &at);
	if (n < pc->len && over_piece(c, s, pc, lo, hi, end, &over) > n)
		n = over_piece(c, s, pc, lo, hi, end, &at);
	if (!n)
		n = best_fit(c, s, pc, 0, end, end, 0, &at);
	if (!n)
		n = best_fit(c, s, pc, lo, hi, end, pc->len, &at);
	if (!n)
		return;
	if (n < pc->len) {
		rest = piece_add(c, s, k + 1);
		if (!rest)
			return;
		pc = &s->pieces[k];
		rest->p = pc->p + n;
		rest->len = pc->len - n;
		pc->len = n;
	}
	pc->at = at;
	pc->placed = true;
	claim(c, pc);
}

