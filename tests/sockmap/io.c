// SPDX-License-Identifier: GPL-2.0
/*
 * The sockets and the record flow of the sockmap hand-off test (io.h): the
 * sender thread, the switches between verdict states, and the vsock pair
 * (over loopback or through the host); the receiver's reads are read.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <linux/vm_sockets.h>

#include "bpf.h"
#include "check.h"
#include "io.h"

unsigned int env_uint(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 10) : def;
}

/* All len bytes of buf on fd: 0, or a negative errno (EPIPE: sent none). */
int send_all(int fd, const unsigned char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		off += n;
	}
	return 0;
}

void *sender(void *arg)
{
	struct flow *f = arg;
	unsigned char rec[REC];
	__u32 r;

	for (r = f->first; r < f->limit; r++) {
		int err;

		while (__atomic_load_n(&f->pause, __ATOMIC_ACQUIRE) &&
		       !__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&f->paused, 1, __ATOMIC_RELEASE);
			usleep(1000);
		}
		__atomic_store_n(&f->paused, 0, __ATOMIC_RELEASE);
		if (__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE))
			break;
		stream_fill(rec, (__u64)r * REC, REC);
		__atomic_store_n(&f->eb[r], __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
		__atomic_store_n(&f->started, r + 1, __ATOMIC_RELEASE);
		err = send_all(f->fd, rec, REC);
		if (err) {
			f->err = -err;
			break;
		}
	}
	if (f->shut)
		shutdown(f->fd, SHUT_WR);
	return NULL;
}

/* Switch to the state of sides new_sides: epoch odd while op runs. */
int switch_to(struct flow *f, unsigned char new_sides,
	      const char *what, int (*op)(void *), void *arg)
{
	__u32 e = __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE);
	int err;

	if (e + 2 >= MAX_EPOCHS)
		return -E2BIG;
	f->sides[e + 1] = f->sides[e] | new_sides;
	f->sides[e + 2] = new_sides;
	f->what[e + 1] = what;
	f->at[e + 1] = __atomic_load_n(&f->started, __ATOMIC_ACQUIRE);
	if (ioctl(f->rx_fd, SIOCINQ, &f->inq[e + 1]))
		f->inq[e + 1] = -errno;
	f->what[e + 2] = new_sides == SIDE_U ? "redirect" :
			 strcmp(what, "remove") ? "pass" : "out of the map";
	__atomic_store_n(&f->epoch, e + 1, __ATOMIC_RELEASE);
	err = op(arg);
	f->at[e + 2] = __atomic_load_n(&f->started, __ATOMIC_ACQUIRE);
	__atomic_store_n(&f->epoch, e + 2, __ATOMIC_RELEASE);
	return err;
}

int op_insert(void *arg)
{
	struct map_op *m = arg;

	return sockmap_add(m->map_fd, KEY_VSOCK, m->fd);
}

int op_remove(void *arg)
{
	struct map_op *m = arg;

	return map_delete(m->map_fd, KEY_VSOCK);
}

int op_mode(void *arg)
{
	struct map_op *m = arg;

	return set_mode(m->ctl_fd, m->mode);
}

unsigned char mode_sides(__u64 mode)
{
	return mode == MODE_PASS ? SIDE_S : SIDE_U;
}

/*
 * The peer of the sender's connect(): the loopback transport (CID 1, the
 * listener's own port), or, with RXKIT_SOCKMAP_VIA=CID:PORT:LPORT (the
 * virtio variant, tests/vsock_sockmap.sh), host CID:PORT, which the host
 * relays to this guest's LPORT (rxkit-vsock uds-relay): the records then
 * cross the virtio device both ways and S gets them from the RX worker.
 */
struct via {
	unsigned int cid, port, lport;
};

static bool via_get(struct via *v)
{
	const char *e = getenv("RXKIT_SOCKMAP_VIA");

	return e && *e && sscanf(e, "%u:%u:%u", &v->cid, &v->port, &v->lport) == 3;
}

/* A connected vsock stream pair: *tx the client, *rx accepted. */
int vsock_pair(unsigned int port, int *tx, int *rx)
{
	struct sockaddr_vm addr = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_ANY,
		.svm_port = port,
	};
	struct via v;
	int l, c, a;

	if (via_get(&v))
		addr.svm_port = v.lport;
	l = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (l < 0)
		return -errno;
	if (bind(l, (struct sockaddr *)&addr, sizeof(addr)) || listen(l, 1))
		goto fail_l;
	c = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (c < 0)
		goto fail_l;
	addr.svm_cid = VMADDR_CID_LOCAL;
	if (via_get(&v)) {
		addr.svm_cid = v.cid;
		addr.svm_port = v.port;
	}
	if (connect(c, (struct sockaddr *)&addr, sizeof(addr)))
		goto fail_c;
	a = accept(l, NULL, NULL);
	if (a < 0)
		goto fail_c;
	close(l);
	*tx = c;
	*rx = a;
	return 0;
fail_c:
	close(c);
fail_l:
	a = -errno;
	close(l);
	return a;
}

unsigned int next_port(void)
{
	static unsigned int n;

	return PORT_BASE + (getpid() % 1000) * 8 + n++;
}

/* Write records f->first to limit - 1 and wait for the sender. */
int send_records(struct flow *f, __u32 limit)
{
	int err;

	f->limit = limit;
	f->stop = 0;
	err = pthread_create(&f->thread, NULL, sender, f);
	if (err)
		return err;
	pthread_join(f->thread, NULL);
	f->first = limit;
	return f->err;
}
