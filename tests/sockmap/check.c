// SPDX-License-Identifier: GPL-2.0
/*
 * The stream checker of the sockmap hand-off test (check.h).
 *
 * check_stream() cuts each side's bytes into pieces, runs that are the
 * stream's from some offset: a piece begins where 8 of its bytes, read as
 * a word, unmix to a word index that the bytes around fit (anchor()), and
 * runs as far as the bytes go on matching.  Shorter runs, which hold no
 * whole word, are placed where they fit between the side's neighbouring
 * pieces, on bytes no piece holds yet (place()).  A piece runs too far
 * when the side's next piece begins with the bytes the stream has next
 * (one byte in 256); such bytes are handed back to the next piece when
 * another side holds them too and the next piece's place lacks them
 * (shift()), so that a correct split is never a repeat.  Then each byte
 * of the stream is counted, the whole stream through: bytes read nowhere
 * (lost), more than once (repeated), pieces that come on their side before
 * bytes written ahead of them (reordered), pieces on a side no verdict
 * allowed (wrong side), bytes nowhere in the stream (unplaced).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pieces.h"

static const char * const kind_name[KINDS] = {
	[LOST] = "lost",
	[REPEATED] = "repeated",
	[REORDERED] = "reordered",
	[WRONG_SIDE] = "wrong side",
	[UNPLACED] = "unplaced",
};

/* What happened in epoch e (a switch while odd, a state while even). */
static const char *epoch_what(struct flow *f, __u32 e)
{
	if (e >= MAX_EPOCHS)
		return "?";
	if (e > __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE))
		return "none";
	return f->what[e] ? f->what[e] : "out of the map";
}

/* Does some epoch in [from, to] allow side bit? */
static bool side_allowed(struct flow *f, __u32 from, __u32 to, int bit)
{
	__u32 e;

	for (e = from; e <= to && e < MAX_EPOCHS; e++)
		if (f->sides[e] & bit)
			return true;
	return false;
}

/* The epoch after the read of s that brought its byte p - 1. */
static __u32 read_epoch(const struct check *c, const struct side *s, size_t p)
{
	size_t lo = 0, hi = s->reads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->read_end[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->reads ? s->read_epoch[lo] : c->f->epoch;
}

/*
 * Per record of piece pc: the side must fit a verdict in force between the
 * start of the record's write and the read that brought the piece's last
 * byte of it.
 */
static void sides_of(struct check *c, struct side *s, const struct piece *pc)
{
	struct flow *f = c->f;
	__u64 o = pc->at, stop = pc->at + pc->len;

	while (o < stop) {
		__u32 r = o / REC, eb = __atomic_load_n(&f->eb[r], __ATOMIC_ACQUIRE);
		__u64 rec_end = (__u64)(r + 1) * REC;
		__u64 pend = rec_end < stop ? rec_end : stop;
		__u32 now = read_epoch(c, s, pc->p + (pend - pc->at));

		if (!(c->seen[r] & s->bit))
			s->records++;
		c->seen[r] |= s->bit;
		if (!side_allowed(f, eb, now, s->bit)) {
			c->kinds[WRONG_SIDE]++;
			if (s->bit == SIDE_S)
				c->bypassed++;
			violation(c,
				  "wrong side: %s: record %u written at epoch %u, read at %u: %s",
				  s->name, r, eb, now,
				  s->bit == SIDE_S ? "redirect only" : "pass only");
		} else if (s->bit == SIDE_S && !(f->sides[eb] & SIDE_S) &&
			   pend == rec_end) {
			c->straggled++;
		}
		o = pend;
	}
}

/* The side's pieces in the order they came: each must follow the last. */
static void order_of(struct check *c, const struct side *s)
{
	const struct piece *pc;
	__u64 hw = 0, o;
	size_t k;

	for (k = 0; k < s->npieces; k++) {
		pc = &s->pieces[k];
		if (!pc->placed) {
			c->kinds[UNPLACED]++;
			violation(c, "unplaced: %s: bytes %zu-%zu (%zu) are nowhere in the stream",
				  s->name, pc->p, pc->p + pc->len - 1, pc->len);
			continue;
		}
		for (o = pc->at; o < hw && o < pc->at + pc->len; o++)
			if (c->count[o] < 2)
				break;
		if (o < hw && o < pc->at + pc->len) {
			c->kinds[REORDERED]++;
			violation(c, "reordered: %s: record %llu after record %llu",
				  s->name, (unsigned long long)(pc->at / REC),
				  (unsigned long long)((hw - 1) / REC));
		}
		if (pc->at + pc->len > hw)
			hw = pc->at + pc->len;
	}
}

/* The index of the first piece of s that holds stream offset o, or -1. */
static long holder(const struct side *s, __u64 o, size_t from)
{
	size_t k;

	for (k = from; k < s->npieces; k++)
		if (s->pieces[k].placed && o >= s->pieces[k].at &&
		    o < s->pieces[k].at + s->pieces[k].len)
			return k;
	return -1;
}

/* Offsets [a, b] came more than once: where. */
static void report_repeat(struct check *c, struct side *sides, int nsides,
			  __u64 a, __u64 b)
{
	unsigned long long r = a / REC;
	long k1 = -1, k2 = -1;
	int i;

	for (i = 0; i < nsides && c->shown < SHOW_MAX; i++) {
		k1 = holder(&sides[i], a, 0);
		k2 = k1 < 0 ? -1 : holder(&sides[i], a, k1 + 1);
		if (k2 >= 0)
			break;
	}
	if (k2 == k1 + 1)
		violation(c, "repeated: %s: offsets %llu-%llu again right after them (record %llu)",
			  sides[i].name, (unsigned long long)a, (unsigned long long)b, r);
	else if (k2 >= 0)
		violation(c, "repeated: %s: offsets %llu-%llu again (record %llu)",
			  sides[i].name, (unsigned long long)a, (unsigned long long)b, r);
	else
		violation(c, "repeated: offsets %llu-%llu on both sides (record %llu)",
			  (unsigned long long)a, (unsigned long long)b, r);
}

/* Records [r, last] never arrived: when the first was written. */
static void report_lost(struct check *c, __u32 r, __u32 last)
{
	struct flow *f = c->f;
	__u32 e = f->eb[r], next = (e + 1) | 1;

	if (r == last)
		violation(c, "lost: record %u never arrived", r);
	else
		violation(c, "lost: records %u-%u never arrived", r, last);
	if (c->shown > SHOW_MAX)
		return;
	if (next < MAX_EPOCHS && f->what[next])
		printf("#   written in epoch %u (%s), %u records into it, %d before the %s\n",
		       e, epoch_what(f, e), r - f->at[e], (int)(f->at[next] - r),
		       epoch_what(f, next));
	else
		printf("#   written in epoch %u (%s), %u records into it\n",
		       e, epoch_what(f, e), r - f->at[e]);
}

/* Each byte of the stream read once: runs read never or again. */
static void count_stream(struct check *c, struct side *sides, int nsides,
			 __u64 end)
{
	__u64 o, a;
	__u32 r, last_rep = ~0U, last_lost = ~0U;

	for (o = 0; o < end;) {
		unsigned char n = c->count[o];

		for (a = o; o < end && (c->count[o] == 0) == (n == 0) &&
		     (c->count[o] > 1) == (n > 1); o++)
			if (n > 1 && o / REC != last_rep) {
				last_rep = o / REC;
				c->kinds[REPEATED]++;
			}
		if (n == 0) {
			c->kinds[LOST] += (o - 1) / REC - a / REC + 1 -
					  (a / REC == last_lost);
			last_lost = (o - 1) / REC;
			report_lost(c, a / REC, (o - 1) / REC);
		} else if (n > 1) {
			report_repeat(c, sides, nsides, a, o - 1);
		}
	}
	for (r = 0; r < end / REC; r++) {
		for (o = (__u64)r * REC; o < (__u64)(r + 1) * REC && c->count[o]; o++)
			;
		if (o == (__u64)(r + 1) * REC)
			c->received++;
		else
			c->lost++;
	}
}

/*
 * The bytes of the sides against the stream of total records: together
 * they hold every byte once, each side's in the order written, each piece
 * on a side its verdict allowed.  Every anomaly is counted by kind.
 */
void check_stream(struct check *c, struct side *sides, int nsides,
		  __u32 total)
{
	__u64 end = (__u64)total * REC;
	size_t k;
	int i, kd;

	c->sides = sides;
	c->nsides = nsides;
	c->count = calloc(end ? end : 1, 1);
	if (!c->count) {
		violation(c, "no memory for the count of %llu bytes",
			  (unsigned long long)end);
		return;
	}
	for (i = 0; i < nsides; i++) {
		cut(c, &sides[i], end);
		for (k = 0; k < sides[i].npieces; k++)
			if (sides[i].pieces[k].placed)
				claim(c, &sides[i].pieces[k]);
	}
	for (i = 0; i < nsides; i++)
		for (k = 0; k < sides[i].npieces; k++)
			if (!sides[i].pieces[k].placed)
				place(c, &sides[i], k, end);
	for (i = 0; i < nsides; i++)
		for (k = 0; k < sides[i].npieces; k++) {
			shift(c, &sides[i], k, end, 4);
			shift_head(c, &sides[i], k);
		}
	for (i = 0; i < nsides; i++) {
		order_of(c, &sides[i]);
		for (k = 0; k < sides[i].npieces; k++)
			if (sides[i].pieces[k].placed)
				sides_of(c, &sides[i], &sides[i].pieces[k]);
	}
	count_stream(c, sides, nsides, end);
	fputs("# stream check:", stdout);
	for (kd = 0; kd < KINDS; kd++)
		printf("%s %u %s", kd ? "," : "", c->kinds[kd], kind_name[kd]);
	putchar('\n');
	free(c->count);
	c->count = NULL;
}

