// SPDX-License-Identifier: GPL-2.0
/*
 * The receiver's reads of the sockmap hand-off test's sides S and U (io.h),
 * fed to the checker; on the host too (track_test.c), no kernel.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "check.h"
#include "io.h"

__u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Side s is read no more: it reached EOF, or a read of it failed. */
static bool side_done(const struct side *s)
{
	return s->eof || s->err;
}

/*
 * One non-blocking read of side s, fed to the checker; returns the bytes
 * read, 0 at EOF, when nothing was there or once a read failed, -1 on the
 * failed read (printed once: a side that fails is not read again, as the
 * same error would come back on each read, and the other side still is).
 */
ssize_t side_read(struct check *c, struct side *s, unsigned char *buf)
{
	ssize_t n;

	if (side_done(s))
		return 0;
	n = recv(s->fd, buf, IO_SIZE, MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		s->err = errno;
		violation(c, "%s: recv: %s", s->name, strerror(errno));
		return -1;
	}
	if (n == 0) {
		s->eof = true;
		return 0;
	}
	side_feed(c, s, buf, n);
	return n;
}

/*
 * Read the sides for ms milliseconds (one round when 0): a side at EOF or
 * whose read failed is left out of the poll, the others still read.
 */
void read_for(struct check *c, struct side *sides, int nsides,
	      unsigned char *buf, unsigned int ms)
{
	__u64 end = now_ms() + ms;
	struct pollfd pfd[2];
	int i;

	do {
		for (i = 0; i < nsides; i++) {
			pfd[i].fd = side_done(&sides[i]) ? -1 : sides[i].fd;
			pfd[i].events = POLLIN;
		}
		poll(pfd, nsides, 5);
		for (i = 0; i < nsides; i++)
			side_read(c, &sides[i], buf);
	} while (now_ms() < end);
}

/*
 * Read side s until one read returns less than a full buffer: its receive
 * queue was then empty, so no skb is left partly read.  Returns false
 * when it never did.
 */
bool drain(struct check *c, struct side *s, unsigned char *buf)
{
	int i;

	for (i = 0; i < 10000; i++)
		if (side_read(c, s, buf) < IO_SIZE)
			return true;
	return false;
}
