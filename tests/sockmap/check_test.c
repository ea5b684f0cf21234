// SPDX-License-Identifier: GPL-2.0
/*
 * check_test: the sockmap test's stream checker (check.c) on the host, no
 * kernel: streams split between the vsock side S and the unix side U as a
 * right kernel splits them must pass, the splits the old checker took for
 * repeats among them; loss, repetition, reordering, the wrong side and
 * bytes never written must each fail, counted as their kind, the whole
 * stream through.  Run by tests/sockmap_check.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "rig.h"

/* Check both sides; the count of kind k. */
static void check(struct rig *r)
{
	check_stream(&r->c, r->s, 2, r->total);
}

static unsigned int others(const struct rig *r, enum kind k)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < KINDS; i++)
		if (i != (int)k)
			n += r->c.kinds[i];
	return n;
}

TEST(one_side)
{
	struct rig *r = rig_new(1000, SIDE_S | SIDE_U);

	give(r, S, 0, 1000 * REC);
	check(r);
	EXPECT_EQ(0U, r->c.errors);
	EXPECT_EQ(1000U, r->c.received);
	rig_free(r);
}

/*
 * Records [k, m) on U, the rest on S, where record m's first byte is
 * record k's: S's first run reaches a byte too far.  A right split.
 */
TEST(record_switch_same_first_byte)
{
	struct rig *r = rig_new(65536, SIDE_S | SIDE_U);
	__u32 k = 100, m;

	for (m = k + 2; m < 65536; m++)
		if (stream_byte((__u64)m * REC) == stream_byte((__u64)k * REC))
			break;
	ASSERT_GT(65536U, m) TH_LOG("no record begins as record %u does", k);
	give(r, S, 0, (size_t)k * REC);
	give(r, U, (__u64)k * REC, (size_t)(m - k) * REC);
	give(r, S, (__u64)m * REC, (size_t)(65536 - m) * REC);
	check(r);
	TH_LOG("records %u-%u on unix, record %u begins as record %u", k, m - 1, m, k);
	EXPECT_EQ(0U, r->c.errors);
	EXPECT_EQ(65536U, r->c.received);
	rig_free(r);
}

/* The same with cuts inside records and two bytes alike. */
TEST(byte_cut_two_bytes_alike)
{
	__u32 total = 1 << 16;
	struct rig *r = rig_new(total, SIDE_S | SIDE_U);
	__u64 a = 1000, b, end = (__u64)total * REC;

	for (b = a + 2; b + 1 < end; b++)
		if (stream_byte(b) == stream_byte(a) &&
		    stream_byte(b + 1) == stream_byte(a + 1))
			break;
	ASSERT_GT(end - 1, b) TH_LOG("no two bytes as at offset %llu",
				     (unsigned long long)a);
	give(r, S, 0, a);
	give(r, U, a, b - a);
	give(r, S, b, end - b);
	check(r);
	EXPECT_EQ(0U, r->c.errors);
	rig_free(r);
}

/*
 * Thousands of switches at random places, some pieces of a few bytes: each
 * a right split.  The old checker failed about one record-aligned switch
 * in 256.
 */
TEST(random_splits)
{
	__u64 seed, x, o, n, end;
	unsigned int fails = 0, switches = 0;

	for (seed = 1; seed <= 20; seed++) {
		struct rig *r = rig_new(8192, SIDE_S | SIDE_U);
		int side = S;

		end = 8192ULL * REC;
		x = seed * 0x9e3779b97f4a7c15ULL;
		for (o = 0; o < end; o += n) {
			n = rnd(&x) % 10 ? 1 + rnd(&x) % 400 : 1 + rnd(&x) % 7;
			if (rnd(&x) % 3 == 0)
				n = REC * (1 + rnd(&x) % 4) - o % REC;
			if (n > end - o)
				n = end - o;
			give(r, side, o, n);
			side = rnd(&x) & 1;
			switches++;
		}
		check(r);
		fails += r->c.errors;
		rig_free(r);
	}
	TH_LOG("%u pieces over 20 streams", switches);
	EXPECT_EQ(0U, fails);
}

/* A piece of 3 bytes on U between S's: placed, not lost. */
TEST(short_piece)
{
	struct rig *r = rig_new(100, SIDE_S | SIDE_U);

	give(r, S, 0, 1000);
	give(r, U, 1000, 3);
	give(r, S, 1003, 100 * REC - 1003);
	check(r);
	EXPECT_EQ(0U, r->c.errors);
	rig_free(r);
}

TEST(loss)
{
	struct rig *r = rig_new(1000, SIDE_S | SIDE_U);

	give(r, S, 0, 1000);
	give(r, U, 2000, 1000 * REC - 2000);
	check(r);
	/* Bytes 1000-1999: records 15 to 31. */
	EXPECT_EQ(17U, r->c.kinds[LOST]);
	EXPECT_EQ(0U, others(r, LOST));
	EXPECT_EQ(17U, r->c.lost);
	rig_free(r);
}

/* A partly read skb handed on whole: its read bytes again, on S. */
TEST(repeat_same_side)
{
	struct rig *r = rig_new(1000, SIDE_S | SIDE_U);

	give(r, S, 0, 6400);
	give(r, S, 6390, 1000 * REC - 6390);
	check(r);
	EXPECT_EQ(1U, r->c.kinds[REPEATED]);
	EXPECT_EQ(0U, others(r, REPEATED));
	rig_free(r);
}

/* The first byte of a record twice in a row: a real repeat stays one. */
TEST(repeat_one_byte)
{
	struct rig *r = rig_new(1000, SIDE_S | SIDE_U);

	give(r, S, 0, 6401);
	give(r, S, 6400, 1000 * REC - 6400);
	check(r);
	EXPECT_EQ(1U, r->c.kinds[REPEATED]);
	EXPECT_EQ(0U, others(r, REPEATED));
	rig_free(r);
}

TEST(repeat_other_side)
{
	struct rig *r = rig_new(1000, SIDE_S | SIDE_U);

	give(r, S, 0, 6400);
	give(r, U, 6300, 8000 - 6300);
	give(r, S, 8000, 1000 * REC - 8000);
	check(r);
	/* Bytes 6300-6399: records 98 and 99. */
	EXPECT_EQ(2U, r->c.kinds[REPEATED]);
	EXPECT_EQ(0U, others(r, REPEATED));
	rig_free(r);
}

TEST(reorder)
{
	struct rig *r = rig_new(1000, SIDE_S | SIDE_U);

	give(r, S, 0, 6400);
	give(r, S, 12800, 6400);
	give(r, S, 6400, 6400);
	give(r, S, 19200, 1000 * REC - 19200);
	check(r);
	EXPECT_EQ(1U, r->c.kinds[REORDERED]);
	EXPECT_EQ(0U, others(r, REORDERED));
	rig_free(r);
}

/* Records on U while only pass was in force, and on S under redirect. */
TEST(wrong_side)
{
	struct rig *r = rig_new(1000, SIDE_S);

	give(r, S, 0, 100 * REC);
	give(r, U, 100 * REC, 10 * REC);
	give(r, S, 110 * REC, 890 * REC);
	check(r);
	EXPECT_EQ(10U, r->c.kinds[WRONG_SIDE]);
	EXPECT_EQ(0U, others(r, WRONG_SIDE));
	EXPECT_EQ(0U, r->c.bypassed);
	rig_free(r);
	r = rig_new(10, SIDE_U);
	give(r, S, 0, 10 * REC);
	check(r);
	EXPECT_EQ(10U, r->c.kinds[WRONG_SIDE]);
	EXPECT_EQ(10U, r->c.bypassed);
	rig_free(r);
}

TEST(never_written)
{
	struct rig *r = rig_new(100, SIDE_S | SIDE_U);
	unsigned char junk[100];

	memset(junk, 0, sizeof(junk));
	give(r, S, 0, 50 * REC);
	side_feed(&r->c, &r->s[S], junk, sizeof(junk));
	give(r, S, 50 * REC, 50 * REC);
	check(r);
	EXPECT_EQ(1U, r->c.kinds[UNPLACED]);
	EXPECT_EQ(0U, others(r, UNPLACED));
	rig_free(r);
}

/* Each anomaly of one stream is counted: the check goes on past the first. */
TEST(all_counted)
{
	struct rig *r = rig_new(1000, SIDE_S | SIDE_U);

	give(r, S, 0, 640);			/* records 0-9 */
	give(r, S, 630, 650);			/* record 9 again, to 19 */
	give(r, U, 1280, 1280);			/* 20-39 */
	give(r, U, 3840, 1280);			/* 60-79, 40-59 lost */
	give(r, S, 6400, 1280);			/* 100-119 */
	give(r, S, 5120, 1280);			/* 80-99, after 119 */
	give(r, S, 7680, 1000 * REC - 7680);	/* 120 on */
	check(r);
	EXPECT_EQ(20U, r->c.kinds[LOST]);
	EXPECT_EQ(1U, r->c.kinds[REPEATED]);
	EXPECT_EQ(1U, r->c.kinds[REORDERED]);
	EXPECT_EQ(0U, r->c.kinds[WRONG_SIDE] + r->c.kinds[UNPLACED]);
	rig_free(r);
}

TEST_HARNESS_MAIN
