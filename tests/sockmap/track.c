// SPDX-License-Identifier: GPL-2.0
/*
 * The stream bytes the sides of the sockmap test hold while the flow goes
 * on (check.h: arrived_all()), which its waits for records end on: each
 * distinct byte once, however often it came.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pieces.h"

/*
 * Stream byte o read (without memory: not counted, so a wait runs to its
 * bound and the check says what came).
 */
static void hit(struct check *c, __u64 o)
{
	size_t cap;
	unsigned char *h;

	if (o >= c->hits_cap) {
		cap = c->hits_cap ? 2 * c->hits_cap : 1 << 20;
		while (cap <= o)
			cap *= 2;
		h = realloc(c->hits, cap);
		if (!h)
			return;
		memset(h + c->hits_cap, 0, cap - c->hits_cap);
		c->hits = h;
		c->hits_cap = cap;
	}
	if (!c->hits[o]) {
		c->hits[o] = 1;
		c->arrived++;
	}
}

/*
 * The stream bytes among s's new ones, while the flow goes on: each run
 * from an anchor to the first byte that does not follow.  The next
 * piece's first bytes may follow too, by chance: the next run then
 * begins where an anchor of it covers that byte, and the bytes that fit
 * both count at both offsets.  A piece shorter than an anchor (a small
 * packet between switches, or read on S while the verdict redirects)
 * is skipped: check_stream() places it; until then it counts as bytes
 * not yet counted.  So a few bytes too many at worst (what a wait
 * waits for is a packet, not a byte), never too few.
 */
static void side_track(struct check *c, struct side *s)
{
	const __u64 end = (__u64)MAX_RECORDS * REC;
	size_t p = s->track_p, x;
	__u64 at;

	while (p < s->bytes) {
		if (s->track_run && s->track_at < end &&
		    s->data[p] == stream_byte(s->track_at)) {
			hit(c, s->track_at++);
			p++;
			continue;
		}
		if (p + 15 > s->bytes)
			break;
		x = p;
		if (s->track_run)
			for (x = p > s->track_from + OVERRUN ? p - OVERRUN :
				 s->track_from + 1; x < p; x++)
				if (anchor(s, x, end, &at) &&
				    run_len(s, x, at, end, p - x + 1) == p - x + 1)
					break;
		if (x < p) {
			p = x;
			s->track_at = at;
			s->track_from = p;
			continue;
		}
		s->track_run = anchor(s, p, end, &s->track_at);
		if (s->track_run) {
			s->track_from = p;
		} else {
			s->track_skipped++;
			p++;
		}
	}
	s->track_p = p;
}

/*
 * Are the first (records) records all in, on the sides together, a byte
 * read twice counted once?  (Their byte count alone is not: a repeat
 * would make up for a record still on its way.)  The bytes of pieces
 * too short to anchor count as arrived, once each.
 */
bool arrived_all(struct check *c, struct side *sides, int nsides,
		 __u32 records)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < nsides; i++) {
		side_track(c, &sides[i]);
		n += sides[i].track_skipped + sides[i].bytes - sides[i].track_p;
	}
	return c->arrived + n >= (__u64)records * REC;
}
