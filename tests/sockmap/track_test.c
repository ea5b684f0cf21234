// SPDX-License-Identifier: GPL-2.0
/*
 * track_test: arrived_all() (cut.c), which ends the sockmap test's waits
 * for records on their way, on the host, no kernel.  Bytes read twice
 * must count once (on one side or both), so a repeat cannot make up for
 * a record still missing; a record in pieces across reads and sides
 * counts when its last piece is in, however short.  And read_for()
 * (read.c), which feeds the waits: a side whose read fails is one
 * violation and is not read again, the other side still is.  Run by
 * tests/sockmap_check.sh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "io.h"
#include "rig.h"

#define TOTAL	2000

static bool all_in(struct rig *r, __u32 records)
{
	return arrived_all(&r->c, r->s, 2, records);
}

/* Half on each side, then the rest of a record cut in the middle. */
TEST(split_across_sides)
{
	struct rig *r = rig_new(TOTAL, SIDE_S | SIDE_U);

	give(r, S, 0, 1000 * REC + 20);
	give(r, U, 1000 * REC + 20, (TOTAL - 1000) * REC - 20 - 7);
	EXPECT_FALSE(all_in(r, TOTAL));
	EXPECT_TRUE(all_in(r, TOTAL - 1));
	give(r, U, (__u64)TOTAL * REC - 7, 7);
	EXPECT_TRUE(all_in(r, TOTAL));
	EXPECT_EQ((__u64)TOTAL * REC, r->c.arrived);
	rig_free(r);
}

/* Reads of 1 to 13 bytes: a run goes on across reads. */
TEST(small_reads)
{
	struct rig *r = rig_new(TOTAL, SIDE_S | SIDE_U);
	__u64 o = 0;
	size_t k = 1;

	while (o < (__u64)TOTAL * REC) {
		if (o + k > (__u64)TOTAL * REC)
			k = TOTAL * REC - o;
		give_by(r, S, o, k, k);
		o += k;
		k = k % 13 + 1;
	}
	EXPECT_TRUE(all_in(r, TOTAL));
	rig_free(r);
}

/*
 * The partial head read, then its skb again whole: on S right after
 * (passed) and on U (redirected); a record lost behind each.  The sides
 * hold more bytes than were written, and still a record is missing.
 */
TEST(repeat_hides_no_loss)
{
	struct rig *r = rig_new(TOTAL, SIDE_S | SIDE_U);

	give(r, S, 0, 10);
	give(r, S, 0, 700 * REC);
	give(r, U, 699 * REC, 2 * REC);
	give(r, U, 702 * REC, (TOTAL - 702) * REC);
	ASSERT_LT((__u64)TOTAL * REC, r->s[S].bytes + r->s[U].bytes);
	EXPECT_FALSE(all_in(r, TOTAL));
	/* Record 701 begins as record 700 would go on: a byte too many. */
	EXPECT_EQ((__u64)(TOTAL - 1) * REC + 1, r->c.arrived);
	give(r, S, 701 * REC, REC);
	EXPECT_TRUE(all_in(r, TOTAL));
	rig_free(r);
}

/*
 * Streams cut at random byte positions between the sides, in pieces of
 * 16 bytes or more (shorter ones only check_stream() places), some read
 * twice, some never: arrived is the count of distinct bytes read, never
 * less, a byte more where the next piece began as the stream went on.
 */
TEST(random_cuts)
{
	__u64 x = 0x5eed, o, want, held = 0;
	struct rig *r;
	size_t n;
	int i, k, side;
	bool in;

	for (i = 0; i < 40; i++) {
		r = rig_new(TOTAL, SIDE_S | SIDE_U);
		for (o = 0, side = 0, want = 0; o < (__u64)TOTAL * REC; o += n) {
			n = 16 + rnd(&x) % (3 * REC);
			if (o + n + 16 > (__u64)TOTAL * REC)
				n = TOTAL * REC - o;
			side ^= rnd(&x) % 2;
			k = rnd(&x) % 16;
			if (k == 0)
				continue;
			give_by(r, side, o, n, 1 + rnd(&x) % 4096);
			if (k == 1)
				give(r, side, o, n);
			want += n;
			if (rnd(&x) % 8 == 0)
				arrived_all(&r->c, r->s, 2, TOTAL);
		}
		in = arrived_all(&r->c, r->s, 2, TOTAL);
		held += r->c.arrived >= want && r->c.arrived <= want + 2 &&
			in == (want == (__u64)TOTAL * REC);
		if (r->c.arrived < want || r->c.arrived > want + 2)
			TH_LOG("stream %d: %llu bytes counted, %llu read", i,
			       (unsigned long long)r->c.arrived,
			       (unsigned long long)want);
		rig_free(r);
	}
	EXPECT_EQ(40U, held);
}

/*
 * A piece too short to anchor (5 bytes on U between two of S's) counts
 * as arrived; without it the records are not all in.
 */
TEST(short_piece)
{
	struct rig *r = rig_new(TOTAL, SIDE_S | SIDE_U);

	give(r, S, 0, 1000 * REC);
	give(r, S, 1000 * REC + 5, (TOTAL - 1000) * REC - 5);
	EXPECT_FALSE(all_in(r, TOTAL));
	give(r, U, 1000 * REC, 5);
	EXPECT_TRUE(all_in(r, TOTAL));
	EXPECT_EQ((__u64)TOTAL * REC - 5, r->c.arrived);
	rig_free(r);
}

/*
 * Bytes never written are not in the stream's count; as bytes too short
 * to anchor, the wait counts them as arrived (a bound from above).
 */
TEST(foreign_bytes)
{
	struct rig *r = rig_new(TOTAL, SIDE_S | SIDE_U);
	unsigned char junk[64 * REC] = { 0 };

	give(r, S, 0, 100 * REC);
	side_feed(&r->c, &r->s[U], junk, sizeof(junk));
	EXPECT_TRUE(all_in(r, 164));
	EXPECT_FALSE(all_in(r, 165));
	EXPECT_EQ((__u64)100 * REC, r->c.arrived);
	rig_free(r);
}

/*
 * S fails every read (a pipe: recv() gives ENOTSOCK, and poll() says it
 * is readable), U holds 100 records: one violation, S's error kept, U
 * read whole; a second read_for() does not read S again.
 */
TEST(failed_side_once)
{
	struct rig *r = rig_new(TOTAL, SIDE_S | SIDE_U);
	unsigned char b[100 * REC], *buf = malloc(IO_SIZE);
	int p[2], u[2];

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, u));
	ASSERT_EQ(1, write(p[1], "x", 1));
	stream_fill(b, 0, sizeof(b));
	ASSERT_EQ((ssize_t)sizeof(b), write(u[1], b, sizeof(b)));
	r->s[S].fd = p[0];
	r->s[U].fd = u[0];
	read_for(&r->c, r->s, 2, buf, 50);
	EXPECT_EQ(1U, r->c.errors);
	EXPECT_EQ(ENOTSOCK, r->s[S].err);
	EXPECT_EQ(sizeof(b), r->s[U].bytes);
	EXPECT_TRUE(all_in(r, 100));
	read_for(&r->c, r->s, 2, buf, 20);
	EXPECT_EQ(1U, r->c.errors);
	close(p[0]);
	close(p[1]);
	close(u[0]);
	close(u[1]);
	free(buf);
	rig_free(r);
}

TEST_HARNESS_MAIN
