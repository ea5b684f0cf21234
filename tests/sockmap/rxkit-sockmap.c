// SPDX-License-Identifier: GPL-2.0
/*
 * rxkit-sockmap: a vsock stream socket handed to a BPF sockmap and back
 * while data flows (tests/vsock_sockmap.sh, in the guest over the
 * loopback transport, peer CID 1, or through the host and the virtio
 * device both ways: RXKIT_SOCKMAP_VIA, vsock_pair() in io.c).
 *
 * A sender thread writes 64-byte records to a connected vsock
 * stream socket; the receiver holds the accepted end S.  S and one end U
 * of an AF_UNIX stream socketpair go into a BPF_MAP_TYPE_SOCKMAP whose
 * sk_skb verdict program (raw instructions, bpf.c) reads a mode from an
 * array map: 0 passes the skb to S, 1 redirects it with
 * bpf_sk_redirect_map(BPF_F_INGRESS) to U's receive side.  The receiver
 * inserts S, reads S and U, flips the mode, removes S again, in rounds.
 *
 * What 7.3 supports, and so what this test does (net/core/sock_map.c,
 * net/vmw_vsock/vsock_bpf.c):
 *  - only a connected (TCP_ESTABLISHED) vsock stream or seqpacket socket
 *    may go into a sockmap (sock_map_sk_state_allowed()); a listener or an
 *    unconnected socket gets EOPNOTSUPP (case insert_states);
 *  - the verdict program may be attached as BPF_SK_SKB_VERDICT or as
 *    BPF_SK_SKB_STREAM_VERDICT: without a stream parser both run through
 *    sk_psock_start_verdict() and the transport's read_skb(); a parser is
 *    TCP only (sock_map_link(): -EOPNOTSUPP); both attach types are run;
 *  - bpf_sk_redirect_map() with BPF_F_INGRESS to a vsock socket returns
 *    SK_DROP, so the redirect target is an AF_UNIX stream socket;
 *  - when S leaves the map, what its psock holds is freed
 *    (sk_psock_destroy() -> __sk_psock_zap_ingress()): skbs the verdict
 *    passed but nobody read are gone.  So the receiver removes S only with
 *    the mode set to redirect and after a read of S returned EAGAIN (S's
 *    psock queue empty; every later skb goes to U, which stays in the map);
 *  - the removal does not take lock_sock() (__sock_map_delete()): a verdict
 *    the receive path is running then finds no psock and frees the skb
 *    read_skb() dequeued (sk_psock_verdict_recv()).  So the loop variants
 *    remove S with no record in flight (the sender holds on until all it
 *    wrote arrived); remove_under_flow removes it under the flow, to show
 *    that race.
 *
 * The guarantee checked, per record r (the sender notes the epoch eb[r]
 * when it starts writing r; the receiver bumps the epoch before and after
 * every insert, mode flip and removal, so an odd epoch is "switching" and
 * allows the sides of the states before and after it):
 *  - every byte arrives exactly once over S and U together, as written,
 *    none lost or duplicated;
 *  - on each side the bytes arrive in the order written;
 *  - the side fits the verdict in force at some moment between the start
 *    of r's write (epoch eb[r]) and the read that completed r: U needs a
 *    moment with S in the map and the mode redirect; S needs a moment
 *    with S out of the map or the mode pass.  A record in flight across a
 *    switch may so land on either side; one written wholly while the
 *    redirect verdict was in force must reach U, and one written while S
 *    was out of the map or passed must reach S.
 * The verdict acts on skbs, and an skb holds whole records only where the
 * sender's writes make the packets (loopback): through the virtio device
 * a packet is what the host put into one RX buffer, so a record cut by a
 * switch reaches both sides in pieces.  The receiver so keeps every byte
 * a side read and when (the epoch of the read), and once the flow is over
 * takes the two byte streams apart against the one the sender wrote
 * (check_stream()); the side rule then holds for each piece of a record,
 * up to the read that brought the piece's last byte.
 *
 * The partial head: S's head skb partly read before the verdict
 * first sees S.  rx_bytes must then drop by the unread part only
 * (upstream a463f55c791b, vsock/virtio: account only unread bytes in
 * read_skb()): SIOCINQ never exceeds the bytes not yet read, and the
 * bytes read before the insert must not come again.
 *
 * Cases print KTAP through the kselftest harness; each has a time limit.
 * RXKIT_SOCKMAP_ROUNDS (default 12) and RXKIT_SOCKMAP_MS (milliseconds a
 * phase, default 60) size the loop.  The waits for bytes to arrive are
 * rxkit_scaled() (tests/rxkit-time-scale.h: RXKIT_TIME_SCALE, set by the
 * suite for the guest's accelerator; tests/data/waits lists them).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/sockios.h>
#include <linux/vm_sockets.h>

#include "kselftest_harness.h"
#include "rxkit-time-scale.h"
#include "bpf.h"
#include "check.h"
#include "io.h"
#include "nomem.h"

#define PARTIAL		10		/* bytes of record 0 read before the insert */

/* The sockmap, the control map, the verdict program; S, U, the sender. */
struct rig {
	int map_fd, ctl_fd, prog_fd;
	int tx, s, u, u_peer;
	struct flow *f;
	struct check c;
	unsigned char *buf;
};

/*
 * Maps, program attached as attach, U in the map, a vsock pair; false
 * when the kernel has no bpf() (the caller skips).
 */
static bool rig_setup(struct __test_metadata *_metadata, struct rig *r,
		      __u32 attach)
{
	static char log[65536];
	struct ctl zero = { .mode = MODE_PASS };
	int sv[2], err;

	/* Diagnostics in order with the harness's lines, and before an abort. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	r->tx = -1;
	r->s = -1;
	r->u = -1;
	r->u_peer = -1;
	r->map_fd = map_create(BPF_MAP_TYPE_SOCKMAP, sizeof(__u64), 2);
	if (r->map_fd < 0 && !bpf_syscall())
		return false;
	ASSERT_LE(0, r->map_fd) TH_LOG("sockmap: %s", strerror(errno));
	r->ctl_fd = map_create(BPF_MAP_TYPE_ARRAY, sizeof(struct ctl), 2);
	ASSERT_LE(0, r->ctl_fd) TH_LOG("array map: %s", strerror(errno));
	ASSERT_EQ(0, map_update(r->ctl_fd, CTL_MODE, &zero));
	r->prog_fd = verdict_load(r->ctl_fd, r->map_fd, log, sizeof(log));
	ASSERT_LE(0, r->prog_fd) TH_LOG("verdict: %s\n%s", strerror(errno), log);
	err = prog_attach(r->prog_fd, r->map_fd, attach);
	ASSERT_EQ(0, err) TH_LOG("attach type %u: %s", attach, strerror(-err));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	r->u = sv[0];
	r->u_peer = sv[1];
	err = sockmap_add(r->map_fd, KEY_UNIX, r->u);
	ASSERT_EQ(0, err) TH_LOG("unix socket into the sockmap: %s", strerror(-err));
	err = vsock_pair(next_port(), &r->tx, &r->s);
	ASSERT_EQ(0, err) TH_LOG("vsock pair (%s): %s",
				 getenv("RXKIT_SOCKMAP_VIA") ?: "CID 1", strerror(-err));
	r->buf = malloc(IO_SIZE);
	r->f = calloc(1, sizeof(*r->f));
	ASSERT_NE(NULL, r->buf);
	ASSERT_NE(NULL, r->f);
	r->f->eb = calloc(MAX_RECORDS, sizeof(__u32));
	r->c.seen = calloc(MAX_RECORDS, 1);
	ASSERT_NE(NULL, r->f->eb);
	ASSERT_NE(NULL, r->c.seen);
	r->f->fd = r->tx;
	r->f->rx_fd = r->s;
	r->f->sides[0] = SIDE_S;
	r->c.f = r->f;
	return true;
}

static void rig_teardown(struct rig *r)
{
	if (r->f && r->f->running) {
		__atomic_store_n(&r->f->stop, 1, __ATOMIC_RELEASE);
		shutdown(r->tx, SHUT_RDWR);
		pthread_join(r->f->thread, NULL);
	}
	if (r->s >= 0)
		close(r->s);
	if (r->tx >= 0)
		close(r->tx);
	if (r->u >= 0)
		close(r->u);
	if (r->u_peer >= 0)
		close(r->u_peer);
}

FIXTURE(handoff) {
	struct rig r;
};

FIXTURE_VARIANT(handoff) {
	__u32 attach;
	bool partial_head;
	bool remove_under_flow;
	unsigned int rounds;		/* 0: RXKIT_SOCKMAP_ROUNDS */
};

FIXTURE_VARIANT_ADD(handoff, skb_verdict) {
	.attach = BPF_SK_SKB_VERDICT,
	.partial_head = false,
};

FIXTURE_VARIANT_ADD(handoff, stream_verdict) {
	.attach = BPF_SK_SKB_STREAM_VERDICT,
	.partial_head = false,
};

FIXTURE_VARIANT_ADD(handoff, partial_head) {
	.attach = BPF_SK_SKB_VERDICT,
	.partial_head = true,
};

/*
 * S removed while records keep coming: 40 rounds, so that a race at the
 * removal that hits one removal in a few shows in every run.
 */
FIXTURE_VARIANT_ADD(handoff, remove_under_flow) {
	.attach = BPF_SK_SKB_VERDICT,
	.remove_under_flow = true,
	.rounds = 40,
};

FIXTURE_SETUP(handoff)
{
	if (!rig_setup(_metadata, &self->r, variant->attach))
		SKIP(return, "no bpf() system call (CONFIG_BPF_SYSCALL=n)");
}

FIXTURE_TEARDOWN(handoff)
{
	rig_teardown(&self->r);
}

/*
 * Rounds of: S out of the map, read natively until a read empties its
 * queue (the partial_head variant instead reads 10 bytes of record 0
 * before the first insert); S in with the mode pass (even rounds) or
 * redirect (odd), both sides read; the mode flipped, read; the mode
 * redirect, S read until EAGAIN, S removed.  Then the sender stops and
 * both sides are read to the last record.
 */
TEST_F_TIMEOUT(handoff, loop, 240)
{
	unsigned int rounds = variant->rounds ? variant->rounds :
			      env_uint("RXKIT_SOCKMAP_ROUNDS", 12);
	unsigned int ms = env_uint("RXKIT_SOCKMAP_MS", 60);
	struct rig *rg = &self->r;
	struct side sides[2] = {
		{ .name = "vsock", .fd = rg->s, .bit = SIDE_S },
		{ .name = "unix", .fd = rg->u, .bit = SIDE_U },
	};
	struct map_op m = {
		.map_fd = rg->map_fd, .ctl_fd = rg->ctl_fd, .fd = rg->s,
	};
	struct timeval tv = { .tv_sec = 30 };
	struct check *c = &rg->c;
	struct flow *f = rg->f;
	__u64 t0 = now_ms(), t;
	unsigned int round;
	__u64 runs;
	struct ctl counts;
	__u32 total, r;
	int err;

	ASSERT_EQ(0, setsockopt(rg->tx, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	f->limit = MAX_RECORDS;
	f->shut = true;
	ASSERT_EQ(0, pthread_create(&f->thread, NULL, sender, f));
	f->running = true;

	for (round = 0; round < rounds && !c->errors; round++) {
		__u64 first = round % 2 ? MODE_REDIRECT : MODE_PASS;

		if (round == 0 && variant->partial_head) {
			struct pollfd p = { .fd = rg->s, .events = POLLIN };
			ssize_t n;

			ASSERT_EQ(1, poll(&p, 1, rxkit_scaled(10000)));
			n = recv(rg->s, rg->buf, PARTIAL, 0);
			ASSERT_EQ(PARTIAL, n);
			side_feed(c, &sides[0], rg->buf, n);
		} else {
			read_for(c, sides, 2, rg->buf, ms);
			ASSERT_TRUE(drain(c, &sides[0], rg->buf))
				TH_LOG("vsock: no read ever emptied the receive queue");
		}
		ASSERT_EQ(0, set_mode(rg->ctl_fd, first));
		runs = verdict_runs(rg->ctl_fd);
		err = switch_to(f, mode_sides(first), "insert", op_insert, &m);
		ASSERT_EQ(0, err) TH_LOG("round %u: insert: %s", round, strerror(-err));
		/*
		 * The partly read head skb meets the verdict before S is read
		 * again (else a read could take its rest first).
		 */
		if (round == 0 && variant->partial_head)
			wait_verdict(rg->ctl_fd, runs, rxkit_scaled(2000));
		read_for(c, sides, 2, rg->buf, ms);
		m.mode = !first;
		err = switch_to(f, mode_sides(m.mode), "flip", op_mode, &m);
		ASSERT_EQ(0, err) TH_LOG("round %u: mode: %s", round, strerror(-err));
		read_for(c, sides, 2, rg->buf, ms);
		if (m.mode != MODE_REDIRECT) {
			m.mode = MODE_REDIRECT;
			err = switch_to(f, SIDE_U, "flip", op_mode, &m);
			ASSERT_EQ(0, err) TH_LOG("round %u: mode: %s", round, strerror(-err));
		}
		/*
		 * But for remove_under_flow, S leaves the map with no record in
		 * flight: the sender holds on until every record it wrote has
		 * arrived (on U, the redirect in force, or on S).
		 */
		if (!variant->remove_under_flow) {
			__atomic_store_n(&f->pause, 1, __ATOMIC_RELEASE);
			t = now_ms();
			while (!__atomic_load_n(&f->paused, __ATOMIC_ACQUIRE) &&
			       now_ms() - t < 10000)
				read_for(c, sides, 2, rg->buf, 1);
			t = now_ms();
			while (!arrived_all(c, sides, 2,
					    __atomic_load_n(&f->started, __ATOMIC_ACQUIRE)) &&
			       now_ms() - t < 10000)
				read_for(c, sides, 2, rg->buf, 1);
			if (now_ms() - t >= 10000)
				printf("# round %u: records on their way after 10 s\n", round);
		}
		/* Empty S's psock queue: then nothing the verdict passed is lost. */
		t = now_ms();
		while (side_read(c, &sides[0], rg->buf) > 0) {
			read_for(c, sides + 1, 1, rg->buf, 0);
			if (now_ms() - t > (__u64)rxkit_scaled(5000)) {
				violation(c, "vsock: still readable %d ms into the redirect",
					  rxkit_scaled(5000));
				break;
			}
		}
		err = switch_to(f, SIDE_S, "remove", op_remove, &m);
		ASSERT_EQ(0, err) TH_LOG("round %u: remove: %s", round, strerror(-err));
		__atomic_store_n(&f->pause, 0, __ATOMIC_RELEASE);
	}

	__atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
	pthread_join(f->thread, NULL);
	f->running = false;
	total = __atomic_load_n(&f->started, __ATOMIC_ACQUIRE);
	if (f->err)
		violation(c, "sender: record %u: %s", total - 1, strerror(f->err));
	/* S is out of the map: read it to EOF, U until every record is in. */
	t = now_ms();
	while (!arrived_all(c, sides, 2, total) && now_ms() - t < 10000) {
		__u64 before = side_total(sides, 2);

		read_for(c, sides, 2, rg->buf, 20);
		if (side_total(sides, 2) != before)
			t = now_ms();
	}
	check_stream(c, sides, 2, total);
	for (r = 1; c->errors && r < MAX_EPOCHS && f->what[r]; r += 2)
		printf("# epoch %u: %s, %u records started, SIOCINQ %d\n", r,
		       f->what[r], f->at[r], f->inq[r]);
	ASSERT_EQ(0, map_lookup(rg->ctl_fd, CTL_COUNTS, &counts));
	printf("# %u rounds, %u ms phases, %llu ms: %u records written\n",
	       round, ms, (unsigned long long)(now_ms() - t0), total);
	printf("# %u on vsock, %u on unix, %u never arrived\n",
	       sides[0].records, sides[1].records, c->lost);
	printf("# on vsock with redirect in force: %u written before it, %u after\n",
	       c->straggled, c->bypassed);
	printf("# verdict runs: pass %llu (%llu bytes), redirect %llu (%llu bytes)\n",
	       (unsigned long long)counts.pass_runs,
	       (unsigned long long)counts.pass_bytes,
	       (unsigned long long)counts.redir_runs,
	       (unsigned long long)counts.redir_bytes);
	if (c->shown > SHOW_MAX)
		printf("# ... %u violations in all\n", c->errors);
	fflush(stdout);
	EXPECT_EQ(0U, c->errors);
	EXPECT_LT(0ULL, counts.pass_runs);
	EXPECT_LT(0ULL, counts.redir_runs);
	EXPECT_LT(0U, sides[1].records);
	side_free(&sides[0]);
	side_free(&sides[1]);
}

/*
 * The end of a quiet case: s's bytes checked against records 0 to
 * total - 1, the counts printed, s freed; 0 or map_lookup()'s error.
 */
static int quiet_end(struct rig *rg, struct side *s, __u32 total,
		     struct ctl *counts)
{
	struct check *c = &rg->c;
	int err;

	check_stream(c, s, 1, total);
	err = map_lookup(rg->ctl_fd, CTL_COUNTS, counts);
	if (err)
		memset(counts, 0, sizeof(*counts));
	printf("# read %llu bytes, %u records; verdict runs: pass %llu (%llu bytes)\n",
	       (unsigned long long)s->bytes, c->received,
	       (unsigned long long)counts->pass_runs,
	       (unsigned long long)counts->pass_bytes);
	if (c->shown > SHOW_MAX)
		printf("# ... %u violations in all\n", c->errors);
	fflush(stdout);
	side_free(s);
	return err;
}

FIXTURE(quiet) {
	struct rig r;
	struct fault ft;	/* partial_head_nomem's */
};

FIXTURE_SETUP(quiet)
{
	if (!rig_setup(_metadata, &self->r, BPF_SK_SKB_VERDICT))
		SKIP(return, "no bpf() system call (CONFIG_BPF_SYSCALL=n)");
}

FIXTURE_TEARDOWN(quiet)
{
	fault_disarm(&self->ft);
	rig_teardown(&self->r);
}

/*
 * The partial head without new traffic: 256 records queued, 10 bytes read,
 * then S inserted with the pass verdict and left alone until the verdict
 * ran (patch 5 runs it at once, the baseline at the next packet: a bound
 * of a second, scaled, expires there).  SIOCINQ
 * must never exceed the bytes not read yet (a wrapped rx_bytes does); the
 * bytes after the first 10 must come exactly once; then 256 more records
 * through the verdict, all checked.
 */
TEST_F_TIMEOUT(quiet, partial_head, 120)
{
	struct rig *rg = &self->r;
	struct side s = { .name = "vsock", .fd = rg->s, .bit = SIDE_S };
	struct map_op m = {
		.map_fd = rg->map_fd, .ctl_fd = rg->ctl_fd, .fd = rg->s,
	};
	struct check *c = &rg->c;
	struct flow *f = rg->f;
	int inq = 0, i, err;
	bool have_inq;
	struct ctl counts;
	__u64 unread;
	ssize_t n;

	ASSERT_EQ(0, send_records(f, 256));
	/* 6.18 and 7.3 answer SIOCINQ; 6.12's vsock_do_ioctl() knows SIOCOUTQ only. */
	have_inq = !ioctl(rg->s, SIOCINQ, &inq);
	if (!have_inq) {
		ASSERT_TRUE(errno == EOPNOTSUPP || errno == ENOTTY)
			TH_LOG("SIOCINQ: %s", strerror(errno));
		printf("# SIOCINQ: %s (this vsock has none): %s\n", strerror(errno),
		       "rx_bytes unchecked, the bytes checked");
		usleep(200000);
	}
	for (i = 0; have_inq && i < rxkit_scaled(500) && inq != 256 * REC; i++) {
		ASSERT_EQ(0, ioctl(rg->s, SIOCINQ, &inq));
		usleep(10000);
	}
	if (have_inq)
		ASSERT_EQ(256 * REC, inq);
	n = recv(rg->s, rg->buf, PARTIAL, 0);
	ASSERT_EQ(PARTIAL, n);
	side_feed(c, &s, rg->buf, n);
	if (have_inq) {
		ASSERT_EQ(0, ioctl(rg->s, SIOCINQ, &inq));
		ASSERT_EQ(256 * REC - PARTIAL, inq);
	}
	m.mode = MODE_PASS;
	err = switch_to(f, SIDE_S, "insert", op_insert, &m);
	ASSERT_EQ(0, err) TH_LOG("insert: %s", strerror(-err));
	/* No traffic: the baseline's verdict waits for a packet that never comes. */
	wait_verdict(rg->ctl_fd, 0, rxkit_scaled(1000));
	unread = 256 * REC - s.bytes;
	if (have_inq) {
		ASSERT_EQ(0, ioctl(rg->s, SIOCINQ, &inq));
		if ((unsigned int)inq > unread)
			violation(c, "SIOCINQ %u after the insert, %llu bytes unread: %s",
				  (unsigned int)inq, (unsigned long long)unread,
				  "rx_bytes miscounted");
		printf("# after the insert: SIOCINQ %d of %llu unread bytes\n", inq,
		       (unsigned long long)unread);
	}
	read_for(c, &s, 1, rg->buf, rxkit_scaled(200));
	if (have_inq) {
		ASSERT_EQ(0, ioctl(rg->s, SIOCINQ, &inq));
		if (inq)
			violation(c, "SIOCINQ %u after reading %llu of %u bytes",
				  (unsigned int)inq, (unsigned long long)s.bytes, 256 * REC);
	}
	ASSERT_EQ(0, send_records(f, 512));
	read_for(c, &s, 1, rg->buf, rxkit_scaled(1000));
	if (have_inq)
		ASSERT_EQ(0, ioctl(rg->s, SIOCINQ, &inq));
	printf("# SIOCINQ at the end %d\n", inq);
	ASSERT_EQ(0, quiet_end(rg, &s, 512, &counts));
	EXPECT_EQ(0U, c->errors);
}

/*
 * The kit's fix (series/T/0000-*) when its pull fails: read_skb() drops
 * the bytes recvmsg() read off the head skb before it dequeues it, and a
 * nonlinear skb needs a new head for that.  One write of NOMEM_RECS
 * records is one such skb over loopback; NOMEM_READ bytes of it are read;
 * then every allocation under virtio_transport_read_skb() fails (nomem.c)
 * while S goes into the map with the pass verdict and more records come
 * (the insert's hand-off and the next packets run read_skb()).  Meanwhile
 * SIOCINQ must keep every unread byte; once the faults stop and more
 * records came, every byte after the first NOMEM_READ must arrive exactly
 * once.  A run in which no allocation failed proved nothing: it fails.
 */
#define NOMEM_RECS	1024		/* 64 KiB: one nonlinear skb */
#define NOMEM_READ	4096		/* bytes read before the insert */

TEST_F_TIMEOUT(quiet, partial_head_nomem, 120)
{
	struct rig *rg = &self->r;
	struct side s = { .name = "vsock", .fd = rg->s, .bit = SIDE_S };
	struct map_op m = {
		.map_fd = rg->map_fd, .ctl_fd = rg->ctl_fd, .fd = rg->s,
		.mode = MODE_PASS,
	};
	struct pollfd p = { .fd = rg->s, .events = POLLIN };
	struct check *c = &rg->c;
	__u32 total = NOMEM_RECS + 16;
	struct ctl counts;
	long failed = 0;
	char why[256];
	int inq, i, err;
	ssize_t n;

	if (fault_prepare(&self->ft, "virtio_transport_read_skb", why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, send_burst(rg->f, NOMEM_RECS));
	ASSERT_EQ(1, poll(&p, 1, rxkit_scaled(10000)));
	n = recv(rg->s, rg->buf, NOMEM_READ, 0);
	ASSERT_EQ(NOMEM_READ, n);
	side_feed(c, &s, rg->buf, n);
	ASSERT_EQ(0, fault_arm(&self->ft));
	err = switch_to(rg->f, SIDE_S, "insert", op_insert, &m);
	ASSERT_EQ(0, err) TH_LOG("insert: %s", strerror(-err));
	ASSERT_EQ(0, send_records(rg->f, total));
	for (i = 0; i < rxkit_scaled(200) && !failed; i++) {
		usleep(10000);
		failed = fault_count(&self->ft);
	}
	/* Still armed: no verdict can have taken bytes off rx_bytes. */
	if (!ioctl(rg->s, SIOCINQ, &inq) && (__u64)inq != (__u64)total * REC - s.bytes)
		violation(c, "SIOCINQ %d after the failed pulls, %llu bytes unread: %s", inq,
			  (unsigned long long)total * REC - s.bytes, "rx_bytes miscounted");
	failed = fault_disarm(&self->ft);
	printf("# allocations failed under %s(): %ld\n", self->ft.fn, failed);
	ASSERT_LT(0, failed) TH_LOG("none failed: the case proved nothing");
	total += 512;
	ASSERT_EQ(0, send_records(rg->f, total));
	read_for(c, &s, 1, rg->buf, rxkit_scaled(1000));
	ASSERT_EQ(0, quiet_end(rg, &s, total, &counts));
	EXPECT_EQ(0U, c->errors);
	EXPECT_LT(0ULL, counts.pass_runs);
}

/*
 * What 7.3 lets into a sockmap (sock_map_sk_state_allowed()): connected
 * vsock stream sockets, not a vsock listener nor an unconnected one.
 */
TEST(insert_states)
{
	struct sockaddr_vm addr = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_ANY,
		.svm_port = next_port(),
	};
	int map, l, un, tx, rx, err;

	map = map_create(BPF_MAP_TYPE_SOCKMAP, sizeof(__u64), 2);
	if (map < 0 && !bpf_syscall())
		SKIP(return, "no bpf() system call (CONFIG_BPF_SYSCALL=n)");
	ASSERT_LE(0, map);
	un = socket(AF_VSOCK, SOCK_STREAM, 0);
	ASSERT_LE(0, un);
	EXPECT_EQ(-EOPNOTSUPP, sockmap_add(map, 0, un));
	l = socket(AF_VSOCK, SOCK_STREAM, 0);
	ASSERT_LE(0, l);
	ASSERT_EQ(0, bind(l, (struct sockaddr *)&addr, sizeof(addr)));
	ASSERT_EQ(0, listen(l, 1));
	EXPECT_EQ(-EOPNOTSUPP, sockmap_add(map, 0, l));
	err = vsock_pair(next_port(), &tx, &rx);
	ASSERT_EQ(0, err) TH_LOG("vsock pair (%s): %s",
				 getenv("RXKIT_SOCKMAP_VIA") ?: "CID 1", strerror(-err));
	EXPECT_EQ(0, sockmap_add(map, 0, rx));
	EXPECT_EQ(0, sockmap_add(map, 1, tx));
	EXPECT_EQ(0, map_delete(map, 0));
	EXPECT_EQ(0, map_delete(map, 1));
	close(tx);
	close(rx);
	close(l);
	close(un);
	close(map);
}

TEST_HARNESS_MAIN

