// SPDX-License-Identifier: GPL-2.0
/*
 * rxkit-vsock: the data mover of tests/vsock_vhost_user.sh.
 *
 * One static binary for both sides: in the guest it speaks AF_VSOCK, on
 * the host it speaks the Unix-socket protocol of the vhost-device-vsock
 * daemon (host to guest: connect to the daemon's uds_path, send
 * "CONNECT <port>\n", read "OK <n>\n"; guest to host: the daemon connects
 * to "<uds_path>_<port>").
 *
 * Every stream starts with a 16-byte header ("RXKITPAT", the stream id and
 * the payload length, big endian); payload byte i of stream s is
 * ((i + 100 * s) * 7 + 3) mod 251.  The receiver checks every byte and
 * prints one line a stream:
 *
 *   rxkit-vsock: MODE stream=S bytes=N expected=N errors=E first_bad=OFF
 *                ms=T mibps=R result=ok|fail
 *
 * Traffic shapes for the RX batching of the series: CHUNK "A-B" writes
 * pseudo-random sizes between A and B bytes (small-packet floods), -l sets
 * SO_RCVLOWAT on the receiver and waits in poll() before every read (a lost
 * readable notification hangs it until the timeout), -b shrinks the
 * receive buffer (SO_VM_SOCKETS_BUFFER_SIZE), -a makes the sender close
 * halfway without shutdown and -p makes the receiver accept a correct
 * prefix that ends in EOF or a reset (peer gone in the middle of a batch).
 *
 * Usage: see bad_usage() below.  Exit 0 when every stream passed, 1 on a data
 * error, 2 on a usage or system error, 3 on timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/vm_sockets.h>

#define PERIOD		251
#define MAX_IO		(256 * 1024)
#define HDR_LEN		16
#define MAGIC		"RXKITPAT"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static unsigned char ref[MAX_IO + PERIOD];
static unsigned char buf[MAX_IO];
static unsigned int timeout_secs = 120;
static int print_ready;
static const char *mode = "?";
static const char *shape = "plain";
static int rcvlowat;		/* -l: SO_RCVLOWAT of the receiver, 0: unset */
static unsigned long long rcvbuf;	/* -b: SO_VM_SOCKETS_BUFFER_SIZE, 0: unset */
static int abort_half;		/* -a: sender closes halfway, no shutdown */
static int accept_prefix;	/* -p: receiver accepts a correct prefix */

/* A write-size rule: fixed, the io_sizes cycle, or pseudo-random in a range. */
struct chunk_rule {
	size_t lo, hi;		/* lo == hi: fixed; 0, 0: io_sizes cycle */
	__u32 seed;
};

/* Read and write sizes cycle through these (0: the fixed size given). */
static const size_t io_sizes[] = {
	65536, 4096, 1, 60000, 16384, 7, 262144, 1500, 32768, 4095,
};

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: rxkit-vsock cid\n"
		"       rxkit-vsock [OPTIONS] recv PORT STREAMS BYTES\n"
		"       rxkit-vsock [OPTIONS] send CID PORT STREAM BYTES CHUNK\n"
		"       rxkit-vsock [OPTIONS] uds-send PATH PORT STREAMS BYTES CHUNK\n"
		"       rxkit-vsock [OPTIONS] uds-recv PATH STREAMS BYTES\n"
		"       rxkit-vsock uds-relay PATH PORT GPORT\n"
		"\n"
		"cid       print the local CID (IOCTL_VM_SOCKETS_GET_LOCAL_CID)\n"
		"recv      AF_VSOCK listener on PORT: check STREAMS streams of\n"
		"          BYTES payload bytes each (guest RX)\n"
		"send      AF_VSOCK client: send stream STREAM to CID:PORT\n"
		"uds-send  STREAMS parallel streams to guest PORT through the\n"
		"          vhost-device-vsock socket PATH (CONNECT <port>)\n"
		"uds-recv  Unix listener on PATH (the daemon's PATH_<port>)\n"
		"uds-relay join each guest connection to host PORT (PATH_PORT)\n"
		"          to a new one to guest GPORT through PATH, both ways,\n"
		"          until killed (tests/vsock_sockmap.sh)\n"
		"BYTES     payload bytes a stream (K, M, G suffixes; below 4 GiB);\n"
		"          0 for the receiver: the length in the stream header\n"
		"CHUNK     write size in bytes; 0 cycles through 1 B..256 KiB;\n"
		"          A-B: pseudo-random sizes from A to B bytes\n"
		"-t SECS   give up after SECS seconds (exit 3; default 120)\n"
		"-r        print 'RXKIT: ready port=P|path streams=N shape=S' once\n"
		"          listening\n"
		"-s NAME   shape label of the ready and result lines\n"
		"-l BYTES  receiver: SO_RCVLOWAT, and poll() before every read\n"
		"-b BYTES  receiver: SO_VM_SOCKETS_BUFFER_SIZE of the listener\n"
		"-a        sender: close after half the payload, no shutdown\n"
		"-p        receiver: a correct prefix ended by EOF or reset passes\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "rxkit-vsock: %s: %s: %s\n", mode, what,
		strerror(errno));
	exit(2);
}

static void on_alarm(int sig)
{
	static const char msg[] = "rxkit-vsock: timeout\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static void arm_timeout(void)
{
	signal(SIGALRM, on_alarm);
	alarm(timeout_secs);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long parse_num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		bad_usage();
	if (*end == 'G')
		v <<= 30;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'K')
		v <<= 10;
	if (*end == 'G' || *end == 'M' || *end == 'K')
		end++;
	if (*end)
		bad_usage();
	return v;
}

static struct chunk_rule parse_chunk(const char *s)
{
	struct chunk_rule r = { 0, 0, 0 };
	const char *dash = strchr(s, '-');
	char lo[32];

	if (!dash) {
		r.lo = parse_num(s);
		r.hi = r.lo;
		return r;
	}
	if ((size_t)(dash - s) >= sizeof(lo))
		bad_usage();
	memcpy(lo, s, dash - s);
	lo[dash - s] = 0;
	r.lo = parse_num(lo);
	r.hi = parse_num(dash + 1);
	if (!r.lo || r.hi < r.lo)
		bad_usage();
	return r;
}

/* The size of the next write under rule R (K counts the writes). */
static size_t next_chunk(struct chunk_rule *r, unsigned int *k)
{
	if (!r->lo && !r->hi)
		return io_sizes[(*k)++ % ARRAY_SIZE(io_sizes)];
	if (r->lo == r->hi)
		return r->lo;
	/* Numerical Recipes LCG: reproducible sizes for a given stream. */
	r->seed = r->seed * 1664525u + 1013904223u;
	return r->lo + (r->seed >> 8) % (r->hi - r->lo + 1);
}

/* The pattern phase of payload offset OFF of stream S. */
static size_t phase(unsigned int s, unsigned long long off)
{
	return (off + 100ULL * s) % PERIOD;
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write");
		c += n;
		len -= n;
	}
}

static void send_stream(int fd, unsigned int s, unsigned long long bytes,
			struct chunk_rule chunk)
{
	unsigned char hdr[HDR_LEN];
	unsigned long long off = 0, stop = abort_half ? bytes / 2 : bytes;
	unsigned int k = 0;
	__u64 t0 = now_ns(), dt;

	if (bytes > 0xffffffffULL) {
		errno = EINVAL;
		die("BYTES must stay below 4 GiB");
	}
	memcpy(hdr, MAGIC, 8);
	put_be32(hdr + 8, s);
	put_be32(hdr + 12, bytes);
	write_all(fd, hdr, sizeof(hdr));
	chunk.seed = s + 1;
	while (off < stop) {
		size_t n = next_chunk(&chunk, &k);

		if (n > MAX_IO)
			n = MAX_IO;
		if (n > stop - off)
			n = stop - off;
		write_all(fd, ref + phase(s, off), n);
		off += n;
	}
	/* -a: the caller closes without shutdown, the peer sees the reset. */
	if (!abort_half && shutdown(fd, SHUT_WR))
		die("shutdown");
	dt = now_ns() - t0;
	printf("rxkit-vsock: %s shape=%s stream=%u bytes=%llu writes=%u ",
	       mode, shape, s, off, k);
	printf("ms=%llu mibps=%.1f result=sent\n",
	       (unsigned long long)(dt / 1000000),
	       dt ? off / 1048576.0 / (dt / 1e9) : 0.0);
}

/*
 * One read of at most WANT bytes.  With -l, wait in poll() first: the
 * socket must become readable once SO_RCVLOWAT bytes (or the end) are
 * there.  Returns the byte count, 0 at EOF, -1 after a reset (-p only).
 */
static ssize_t read_some(int fd, void *p, size_t want)
{
	for (;;) {
		ssize_t n;

		if (rcvlowat) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			if (poll(&pfd, 1, -1) < 0) {
				if (errno == EINTR)
					continue;
				die("poll");
			}
		}
		n = read(fd, p, want);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (accept_prefix && (errno == ECONNRESET || errno == EPIPE))
			return -1;
		die("read");
	}
}

/* Check one stream on FD; returns 0 when all its bytes are right. */
static int recv_stream(int fd, unsigned long long expected)
{
	unsigned char hdr[HDR_LEN];
	unsigned long long off = 0, errors = 0;
	long long first_bad = -1;
	size_t got = 0;
	unsigned int s = 0, k = 0;
	__u64 t0 = 0, t1 = 0;
	const char *end = "eof";
	int ok;

	while (got < HDR_LEN) {
		ssize_t n = read_some(fd, hdr + got, HDR_LEN - got);

		if (n <= 0)
			break;
		if (!t0)
			t0 = now_ns();
		got += n;
	}
	if (got < HDR_LEN || memcmp(hdr, MAGIC, 8)) {
		printf("rxkit-vsock: %s shape=%s stream=? bytes=0 expected=%llu ",
		       mode, shape, expected);
		printf("errors=1 first_bad=0 header=%s result=fail\n",
		       got < HDR_LEN ? "short" : "bad-magic");
		return 1;
	}
	s = get_be32(hdr + 8);
	if (!expected)
		expected = get_be32(hdr + 12);
	for (;;) {
		size_t want = io_sizes[k++ % ARRAY_SIZE(io_sizes)];
		ssize_t n = read_some(fd, buf, want);

		if (n < 0)
			end = "reset";
		if (n <= 0)
			break;
		t1 = now_ns();
		if (off + n > expected) {
			/* Extra bytes are errors, counted once each. */
			size_t good = off < expected ? expected - off : 0;

			errors += n - good;
			if (first_bad < 0)
				first_bad = expected;
			n = good;
		}
		if (n && memcmp(buf, ref + phase(s, off), n)) {
			ssize_t i;

			for (i = 0; i < n; i++) {
				if (buf[i] == ref[phase(s, off) + i])
					continue;
				errors++;
				if (first_bad < 0)
					first_bad = off + i;
			}
		}
		off += n;
	}
	/* -p: a correct prefix is the expected outcome of an aborted peer. */
	if (off < expected && !accept_prefix) {
		errors += expected - off;
		if (first_bad < 0)
			first_bad = off;
	}
	if (t1 < t0)
		t1 = t0;
	ok = !errors && get_be32(hdr + 12) == expected;
	printf("rxkit-vsock: %s shape=%s stream=%u bytes=%llu expected=%llu ",
	       mode, shape, s, off, expected);
	printf("errors=%llu first_bad=%lld end=%s ms=%llu mibps=%.1f result=%s\n",
	       errors, first_bad, end, (unsigned long long)((t1 - t0) / 1000000),
	       t1 > t0 ? (off + HDR_LEN) / 1048576.0 / ((t1 - t0) / 1e9) : 0.0,
	       ok ? "ok" : "fail");
	return !ok;
}

/* -l on an accepted socket. */
static void set_rcvlowat(int fd)
{
	if (rcvlowat && setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &rcvlowat,
				   sizeof(rcvlowat)))
		die("setsockopt(SO_RCVLOWAT)");
}

/*
 * Reap every child; return the worst exit code (2 for a child that did not
 * exit normally), 0 when all passed.
 */
static int wait_children(void)
{
	int rc = 0, status;

	while (wait(&status) > 0) {
		if (!WIFEXITED(status))
			rc = 2;
		else if (WEXITSTATUS(status) > rc)
			rc = WEXITSTATUS(status);
	}
	return rc;
}

/* Accept STREAMS connections on LFD, check each in a child process. */
static int serve(int lfd, const char *where, unsigned int streams,
		 unsigned long long bytes)
{
	unsigned int i;

	if (print_ready) {
		printf("RXKIT: ready %s streams=%u shape=%s\n", where, streams,
		       shape);
		fflush(stdout);
	}
	for (i = 0; i < streams; i++) {
		int fd = accept(lfd, NULL, NULL);
		pid_t pid;

		if (fd < 0)
			die("accept");
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(lfd);
			arm_timeout();
			set_rcvlowat(fd);
			exit(recv_stream(fd, bytes));
		}
		close(fd);
	}
	return wait_children();
}

static int cmd_cid(void)
{
	unsigned int cid;
	int fd = open("/dev/vsock", O_RDONLY);

	if (fd < 0)
		die("/dev/vsock");
	if (ioctl(fd, IOCTL_VM_SOCKETS_GET_LOCAL_CID, &cid))
		die("IOCTL_VM_SOCKETS_GET_LOCAL_CID");
	printf("%u\n", cid);
	return 0;
}

static int cmd_recv(unsigned int port, unsigned int streams,
		    unsigned long long bytes)
{
	struct sockaddr_vm sa = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_ANY,
		.svm_port = port,
	};
	char where[32];
	int fd = socket(AF_VSOCK, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket(AF_VSOCK)");
	if (rcvbuf && setsockopt(fd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE,
				 &rcvbuf, sizeof(rcvbuf)))
		die("setsockopt(SO_VM_SOCKETS_BUFFER_SIZE)");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind");
	if (listen(fd, streams))
		die("listen");
	snprintf(where, sizeof(where), "port=%u", port);
	return serve(fd, where, streams, bytes);
}

static int cmd_send(unsigned int cid, unsigned int port, unsigned int s,
		    unsigned long long bytes, struct chunk_rule chunk)
{
	struct sockaddr_vm sa = {
		.svm_family = AF_VSOCK,
		.svm_cid = cid,
		.svm_port = port,
	};
	int fd = socket(AF_VSOCK, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket(AF_VSOCK)");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	send_stream(fd, s, bytes, chunk);
	close(fd);
	return 0;
}

static void uds_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		errno = ENAMETOOLONG;
		die(path);
	}
	memcpy(sa->sun_path, path, strlen(path) + 1);
}

/*
 * A connection to guest PORT through the daemon's Unix socket PATH
 * ("CONNECT <port>", "OK <n>"); -1 with a result line when refused.
 */
static int uds_connect(const char *path, unsigned int port, unsigned int s)
{
	struct sockaddr_un sa;
	char line[64];
	size_t len = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket(AF_UNIX)");
	uds_addr(&sa, path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die(path);
	len = snprintf(line, sizeof(line), "CONNECT %u\n", port);
	write_all(fd, line, len);
	/* The answer, byte by byte: the guest's data may follow it. */
	len = 0;
	while (len < sizeof(line) - 1) {
		ssize_t n = read(fd, line + len, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (line[len++] == '\n')
			break;
	}
	line[len] = 0;
	if (strncmp(line, "OK ", 3)) {
		printf("rxkit-vsock: %s shape=%s stream=%u ", mode, shape, s);
		printf("CONNECT %u answered '%.*s' result=fail\n",
		       port, (int)strcspn(line, "\n"), line);
		close(fd);
		return -1;
	}
	return fd;
}

/* One host-to-guest stream through the daemon's Unix socket. */
static int uds_send_one(const char *path, unsigned int port, unsigned int s,
			unsigned long long bytes, struct chunk_rule chunk)
{
	int fd = uds_connect(path, port, s);

	if (fd < 0)
		return 1;
	send_stream(fd, s, bytes, chunk);
	close(fd);
	return 0;
}

/*
 * Copy A to B and B to A until both ends sent EOF (passing each EOF on as
 * a shutdown); 0, or 1 when a side failed.
 */
static int relay_pair(int a, int b)
{
	struct pollfd p[2] = { { .fd = a }, { .fd = b } };
	bool open_in[2] = { true, true };

	while (open_in[0] || open_in[1]) {
		int i;

		p[0].events = open_in[0] ? POLLIN : 0;
		p[1].events = open_in[1] ? POLLIN : 0;
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (!open_in[i] || !p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				open_in[i] = false;
				shutdown(p[!i].fd, SHUT_WR);
				if (n < 0)
					return 1;
				continue;
			}
			write_all(p[!i].fd, buf, n);
		}
	}
	return 0;
}

/*
 * Guest-to-guest through the host: every connection the guest makes to
 * host port PORT (the daemon's PATH_<PORT>) is joined to a new connection
 * to guest port GPORT, both ways, each in a child, until killed.
 */
static int cmd_uds_relay(const char *path, unsigned int port,
			 unsigned int gport)
{
	struct sockaddr_un sa;
	char lpath[128];
	unsigned int n = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket(AF_UNIX)");
	snprintf(lpath, sizeof(lpath), "%s_%u", path, port);
	uds_addr(&sa, lpath);
	unlink(lpath);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die(lpath);
	if (listen(fd, 8))
		die("listen");
	alarm(0);
	printf("RXKIT: ready relay %s -> guest port %u\n", lpath, gport);
	for (;;) {
		int in = accept(fd, NULL, NULL), out;
		pid_t pid;

		if (in < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(fd);
			out = uds_connect(path, gport, n);
			if (out < 0)
				exit(1);
			exit(relay_pair(in, out));
		}
		close(in);
		printf("rxkit-vsock: relay connection %u\n", n++);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

static int cmd_uds_send(const char *path, unsigned int port,
			unsigned int streams, unsigned long long bytes,
			struct chunk_rule chunk)
{
	unsigned int i;

	fflush(stdout);
	for (i = 0; i < streams; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			arm_timeout();
			exit(uds_send_one(path, port, i, bytes, chunk));
		}
	}
	return wait_children();
}

static int cmd_uds_recv(const char *path, unsigned int streams,
			unsigned long long bytes)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	if (fd < 0)
		die("socket(AF_UNIX)");
	uds_addr(&sa, path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die(path);
	if (listen(fd, streams))
		die("listen");
	return serve(fd, "path", streams, bytes);
}

int main(int argc, char **argv)
{
	size_t i;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < sizeof(ref); i++)
		ref[i] = (i * 7 + 3) % PERIOD;
	while ((opt = getopt(argc, argv, "+t:rs:l:b:ap")) != -1) {
		switch (opt) {
		case 't':
			timeout_secs = parse_num(optarg);
			break;
		case 'r':
			print_ready = 1;
			break;
		case 's':
			shape = optarg;
			break;
		case 'l':
			rcvlowat = parse_num(optarg);
			break;
		case 'b':
			rcvbuf = parse_num(optarg);
			break;
		case 'a':
			abort_half = 1;
			break;
		case 'p':
			accept_prefix = 1;
			break;
		default:
			bad_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		bad_usage();
	mode = argv[0];
	arm_timeout();
	if (!strcmp(mode, "cid") && argc == 1)
		return cmd_cid();
	if (!strcmp(mode, "recv") && argc == 4)
		return cmd_recv(parse_num(argv[1]), parse_num(argv[2]),
				parse_num(argv[3]));
	if (!strcmp(mode, "send") && argc == 6)
		return cmd_send(parse_num(argv[1]), parse_num(argv[2]),
				parse_num(argv[3]), parse_num(argv[4]),
				parse_chunk(argv[5]));
	if (!strcmp(mode, "uds-send") && argc == 6)
		return cmd_uds_send(argv[1], parse_num(argv[2]),
				    parse_num(argv[3]), parse_num(argv[4]),
				    parse_chunk(argv[5]));
	if (!strcmp(mode, "uds-relay") && argc == 4)
		return cmd_uds_relay(argv[1], parse_num(argv[2]),
				     parse_num(argv[3]));
	if (!strcmp(mode, "uds-recv") && argc == 4)
		return cmd_uds_recv(argv[1], parse_num(argv[2]),
				    parse_num(argv[3]));
	bad_usage();
	return 2;
}
