/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stream checker of the sockmap hand-off test (rxkit-sockmap.c): the
 * bytes one sender wrote, read back over a vsock socket S and the AF_UNIX
 * socket U the verdict redirects to, taken apart once the flow is over.
 * check_test.c tests it on the host, without a kernel.
 *
 * The stream's bytes do not repeat: each 8-byte word is a bijective mix of
 * its index (stream_byte()), so any 8 aligned bytes a side read tell where
 * in the stream they were written.
 */
#ifndef SOCKMAP_CHECK_H
#define SOCKMAP_CHECK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "kselftest.h"		/* __printf() */

#define REC		64		/* bytes a record */
#define MAX_RECORDS	4194304U	/* 256 MiB of records at most */
#define MAX_EPOCHS	1024

/* The sides a state lets a record reach. */
#define SIDE_S		1
#define SIDE_U		2

/* The record flow, shared by the sender thread and the receiver. */
struct flow {
	int fd;				/* the sender's socket */
	__u32 *eb;			/* epoch at the start of record r's write */
	__u32 epoch;			/* the receiver's switch count */
	unsigned char sides[MAX_EPOCHS];	/* SIDE_* each epoch allows */
	const char *what[MAX_EPOCHS];	/* each epoch's switch or state */
	__u32 at[MAX_EPOCHS];		/* records started when it began */
	int inq[MAX_EPOCHS];		/* SIOCINQ of the receiver then */
	int rx_fd;			/* the receiver, for SIOCINQ */
	__u32 first;			/* the next record to write */
	__u32 limit;			/* records to write, at most */
	__u32 started;			/* records whose write began */
	__u32 stop;			/* the receiver's "no more records" */
	bool shut;			/* shut the sender's side down at the end */
	__u32 pause;			/* the receiver's "hold on" */
	__u32 paused;			/* the sender's "holding" */
	int err;			/* the sender's errno, 0 */
	pthread_t thread;
	bool running;
};

/* A run of a side's bytes that are the stream's from offset at. */
struct piece {
	__u64 at;			/* stream offset of its first byte */
	size_t p;			/* side offset of its first byte */
	size_t len;
	bool placed;			/* at is known (else: bytes to place) */
};

/*
 * One receiving side: every byte it read, in order, and the epoch of each
 * read; the checker cuts the bytes into pieces.
 */
struct side {
	const char *name;
	int fd;
	int bit;			/* SIDE_S or SIDE_U */
	unsigned char *data;		/* the bytes read */
	size_t bytes, cap;
	size_t *read_end;		/* per read: bytes read up to its end */
	__u32 *read_epoch;		/* per read: the epoch after it */
	size_t reads, reads_cap;
	struct piece *pieces;		/* check_stream()'s cut */
	size_t npieces, pieces_cap;
	__u32 records;			/* records with bytes on this side */
	bool eof;
	int err;			/* errno of a failed read: not read again */
	size_t track_p;			/* side_track(): bytes looked at */
	size_t track_from;		/* where its run began */
	__u64 track_at;			/* the stream offset of byte track_p */
	bool track_run;			/* track_at is known */
	size_t track_skipped;		/* bytes of pieces too short to anchor */
};

/*
 * What the check counts, each kind apart: records with a byte that never
 * arrived; records with a byte that arrived more than once; pieces that
 * came on their side before bytes written ahead of them; pieces of a
 * record on a side no verdict in force allowed; runs of read bytes that
 * are nowhere in the stream.
 */
enum kind { LOST, REPEATED, REORDERED, WRONG_SIDE, UNPLACED, KINDS };

struct check {
	struct flow *f;
	unsigned char *seen;		/* per record: SIDE_* its bytes reached */
	unsigned char *count;		/* per stream byte: times read, at most 255 */
	struct side *sides;		/* check_stream()'s */
	int nsides;
	__u32 received;			/* records whose every byte arrived */
	__u32 lost;			/* records with a byte that never arrived */
	unsigned int errors;		/* violations found */
	unsigned int shown;		/* violations printed */
	unsigned int kinds[KINDS];	/* violations of the stream by kind */
	__u32 straggled;		/* on S while mapped to redirect, allowed */
	__u32 bypassed;			/* on S, only redirect in force: not allowed */
	unsigned char *hits;		/* side_track(): per stream byte, 1 once read */
	size_t hits_cap;
	__u64 arrived;			/* side_track(): stream bytes read */
};

/* Violations printed at most; every one is counted. */
#define SHOW_MAX	1000

__printf(2, 3) void violation(struct check *c, const char *fmt, ...);
unsigned char stream_byte(__u64 o);
void stream_fill(unsigned char *p, __u64 o, size_t n);
void side_feed(struct check *c, struct side *s, const unsigned char *p,
	       size_t n);
void side_free(struct side *s);
__u64 side_total(const struct side *s, int n);
void check_stream(struct check *c, struct side *sides, int nsides,
		  __u32 total);
bool arrived_all(struct check *c, struct side *sides, int nsides,
		 __u32 records);

#endif
