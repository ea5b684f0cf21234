// SPDX-License-Identifier: GPL-2.0
/*
 * rxkit-bench: the throughput and latency tools of the benchmark suite,
 * after the cover letter of the series (single stream, host sends, guest
 * receives with one thread in blocking recv(), no poll(), pinned to a CPU).
 *
 *   rxkit-bench rx   [-c CPU] [-r SIZE] [-L LOWAT] [-d USEC [-S BYTES]]
 *                    [-m FILE] [-C CPU] [-n BYTES] ADDR
 *   rxkit-bench tx   [-c CPU] [-w SIZE] [-p USEC] [-R SECS] -n BYTES ADDR
 *   rxkit-bench pong [-c CPU] ADDR
 *   rxkit-bench ping [-c CPU] [-s SIZE] [-n COUNT] [-R SECS] ADDR
 *
 * ADDR: vsock:PORT (listen, any CID), vsock:CID:PORT (connect), unix:PATH
 * (listen or connect), vhu:PATH:PORT (connect to guest PORT through the
 * Unix socket PATH of vhost-device-vsock: "CONNECT PORT\n", "OK N\n").
 * The connecting side retries for SECS seconds (-R) while nobody listens:
 * the host can start a point's sender before the guest's receiver.
 *
 * Byte i of a stream is (i * 7 + 3) mod 251; rx checks every byte.  rx
 * accepts one connection and reads until EOF with recv() of SIZE bytes
 * (default 64 KiB; the cover letter's first table), SO_RCVLOWAT LOWAT when
 * given, sleeping USEC microseconds after each recv() when given (a slow
 * reader; -S: only until BYTES are read, then at full speed).  -m FILE:
 * after each recv(), "rxkit rx BYTES" (the bytes read so far) is written
 * to FILE, e.g. tracefs's trace_marker, where it lands between the kernel's
 * events.  Its line, the time from the first byte to EOF:
 *
 *   rxkit-bench: rx bytes=N seconds=S gbps=G mibps=M recv_calls=C
 *                errors=E first_bad=OFF result=ok|fail
 *
 * -C CPU: the cycles of CPU (every task, user and kernel: perf's
 * PERF_COUNT_HW_CPU_CYCLES, e.g. the RX worker's CPU) over the same window,
 * the cover letter's "Guest CPU1 cycles/B", in a line of their own; where
 * the CPU has no cycles counter (a TCG guest: QEMU emulates no PMU) the
 * count is "-" and the reason follows:
 *
 *   rxkit-bench: cycles cpu=N count=C|- [reason=TEXT]
 *
 * rx executes the no-op marks of bench/src/rxkit-insn.c around its
 * receive loop (x86: nopl 0x4b585201 before the first recv(), 0x4b585202
 * after EOF), so the TCG plugin counts the transfer alone.
 *
 * recv_calls counts every call, the one that returns EOF too.  tx writes
 * BYTES in writes of SIZE (default 64 KiB), -p: sleeping USEC microseconds
 * after each (a backend that reads a Unix stream then sees each write apart
 * instead of coalescing them), and shuts down.  pong echoes one
 * connection; ping sends COUNT requests of SIZE bytes (default 10000 of 64)
 * and waits for each echo:
 *
 *   rxkit-bench: ping count=N size=S mean_us=M median_us=D p99_us=P
 *                min_us=L max_us=H
 *
 * Exit 0; 1 on a data error (or fewer bytes than -n); 2 on a usage or
 * system error; 3 on timeout (-t, default 600 s).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/perf_event.h>
#include <linux/vm_sockets.h>

#define PERIOD		251
#define MAX_IO		(1024 * 1024)
#define MAX_PINGS	1000000

static unsigned char ref[MAX_IO + PERIOD];
static unsigned char buf[MAX_IO];
static const char *mode = "?";
static unsigned int retry_secs;	/* -R: connect retries, seconds */
static unsigned long long slow_bytes;	/* -S: rx's -d ends after these */
static int marker_fd = -1;		/* -m: rx's progress lines go here */
static unsigned int gap_us;		/* -p: tx's pause after each write */
static int cycles_cpu = -1;		/* -C: rx counts this CPU's cycles */
static int cycles_err;			/* errno of a counter that failed */

static void help(FILE *f)
{
	fprintf(f,
		"usage: rxkit-bench rx [-c CPU] [-r SIZE] [-L LOWAT] [-d USEC [-S BYTES]]\n"
		"                      [-m FILE] [-C CPU] [-n BYTES] ADDR\n"
		"       rxkit-bench tx [-c CPU] [-w SIZE] [-p USEC] -n BYTES ADDR\n"
		"       rxkit-bench pong [-c CPU] ADDR\n"
		"       rxkit-bench ping [-c CPU] [-s SIZE] [-n COUNT] ADDR\n"
		"ADDR: vsock:PORT (listen), vsock:CID:PORT, unix:PATH,\n"
		"      vhu:PATH:PORT (guest PORT through vhost-device-vsock's PATH)\n"
		"-t SECS: give up after SECS seconds (exit 3; default 600).\n"
		"-R SECS: tx, ping: retry the connection for SECS seconds.\n"
		"Sizes take K, M and G suffixes.\n");
}

static void die(const char *what)
{
	fprintf(stderr, "rxkit-bench: %s: error: %s: %s\n", mode, what, strerror(errno));
	exit(2);
}

static void fail_usage(const char *what, const char *arg)
{
	help(stderr);
	fprintf(stderr, "rxkit-bench: error: %s '%s'\n", what, arg);
	exit(2);
}

static void on_alarm(int sig)
{
	static const char msg[] = "rxkit-bench: timeout\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static unsigned long long parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		fail_usage("not a size:", s);
	switch (*end) {
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (*end)
		fail_usage("not a size:", s);
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

/*
 * vhu_connect - through vhost-device-vsock's Unix socket @fd to guest
 * @port: 0, or -1 when the daemon did not answer "OK" (no listener yet).
 */
static int vhu_connect(int fd, unsigned int port)
{
	char line[64];
	size_t n = 0;

	snprintf(line, sizeof(line), "CONNECT %u\n", port);
	if (write_all(fd, (unsigned char *)line, strlen(line)))
		return -1;
	/* The answer, "OK <host port>\n", byte by byte: data follows it. */
	while (n < sizeof(line) - 1) {
		if (read(fd, line + n, 1) != 1)
			return -1;
		if (line[n++] == '\n')
			break;
	}
	line[n] = '\0';
	return strncmp(line, "OK ", 3) ? -1 : 0;
}

/* try_connect - a socket connected to @addr, or -1 (errno set). */
static int try_connect(const char *addr)
{
	struct sockaddr_vm svm = { .svm_family = AF_VSOCK };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	unsigned int cid, port;
	const char *colon;
	int fd;

	if (sscanf(addr, "vsock:%u:%u", &cid, &port) == 2) {
		svm.svm_cid = cid;
		svm.svm_port = port;
		fd = socket(AF_VSOCK, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&svm, sizeof(svm)))
			return fd;
	} else if (!strncmp(addr, "vhu:", 4)) {
		colon = strrchr(addr + 4, ':');
		if (!colon || colon - addr - 4 >= (long)sizeof(sun.sun_path) ||
		    sscanf(colon + 1, "%u", &port) != 1)
			fail_usage("not vhu:PATH:PORT:", addr);
		memcpy(sun.sun_path, addr + 4, colon - addr - 4);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
			if (!vhu_connect(fd, port))
				return fd;
			errno = ECONNREFUSED;
		}
	} else {
		if (strncmp(addr, "unix:", 5) || strlen(addr + 5) >= sizeof(sun.sun_path) ||
		    !addr[5])
			fail_usage("unknown address", addr);
		memcpy(sun.sun_path, addr + 5, strlen(addr + 5) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&sun, sizeof(sun)))
			return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * open_addr - a connected stream socket for @addr: accepted on a listener
 * (vsock:PORT, or unix:PATH when @listen_unix) or connected, retrying for
 * retry_secs (-R) while nobody listens yet.
 */
static int open_addr(const char *addr, int listen_unix)
{
	struct sockaddr_vm svm = { .svm_family = AF_VSOCK };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	double deadline = now() + retry_secs;
	unsigned int cid, port;
	int fd, lfd;

	if (sscanf(addr, "vsock:%u:%u", &cid, &port) != 2 &&
	    sscanf(addr, "vsock:%u", &port) == 1) {
		lfd = socket(AF_VSOCK, SOCK_STREAM, 0);
		if (lfd < 0)
			die("socket(AF_VSOCK)");
		svm.svm_cid = VMADDR_CID_ANY;
		svm.svm_port = port;
		if (bind(lfd, (struct sockaddr *)&svm, sizeof(svm)) || listen(lfd, 1))
			die("bind/listen");
	} else if (listen_unix && !strncmp(addr, "unix:", 5)) {
		if (strlen(addr + 5) >= sizeof(sun.sun_path) || !addr[5])
			fail_usage("unknown address", addr);
		memcpy(sun.sun_path, addr + 5, strlen(addr + 5) + 1);
		lfd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (lfd < 0)
			die("socket(AF_UNIX)");
		unlink(sun.sun_path);
		if (bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) || listen(lfd, 1))
			die("bind/listen");
	} else {
		while ((fd = try_connect(addr)) < 0) {
			if (now() >= deadline)
				die("connect");
			usleep(100000);
		}
		return fd;
	}
	printf("rxkit-bench: %s: listening on %s\n", mode, addr);
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	close(lfd);
	return fd;
}

/*
 * cycles_open: a stopped counter of CPU @cpu's cycles, every task, user and
 * kernel; -1 (cycles_err set) when the CPU has none.
 */
static int cycles_open(int cpu)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, 0);
	if (fd < 0)
		cycles_err = errno;
	return fd;
}

/* cycles_report: the -C line; the count of @fd, stopped now. */
static void cycles_report(int fd)
{
	unsigned long long count;

	if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		cycles_err = errno;
	else if (fd >= 0 && read(fd, &count, sizeof(count)) != sizeof(count))
		cycles_err = errno ? errno : EIO;
	if (fd >= 0 && !cycles_err) {
		printf("rxkit-bench: cycles cpu=%d count=%llu\n", cycles_cpu, count);
		return;
	}
	printf("rxkit-bench: cycles cpu=%d count=- reason=perf_event_open: %s\n",
	       cycles_cpu, strerror(cycles_err));
}

/*
 * The no-ops rxkit-insn.c counts at (x86, as the kit's guests): nopl
 * 0x4b585201(%rax,%rax,1) begins the window, 0x4b585202 ends it.
 */
static inline void insn_mark_begin(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x52, 0x58, 0x4b" ::: "memory");
}

static inline void insn_mark_end(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x02, 0x52, 0x58, 0x4b" ::: "memory");
}

static int do_rx(int cpu, size_t rsize, int lowat, unsigned int delay_us,
		 unsigned long long expect, const char *addr)
{
	unsigned long long bytes = 0, calls = 0, errors = 0;
	long long first_bad = -1;
	double t0 = 0, t1;
	ssize_t n;
	size_t i;
	int fd, cfd = -1;

	pin(cpu);
	fd = open_addr(addr, 1);
	if (lowat > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat)))
		die("SO_RCVLOWAT");
	if (cycles_cpu >= 0)
		cfd = cycles_open(cycles_cpu);
	insn_mark_begin();
	for (;;) {
		n = recv(fd, buf, rsize, 0);
		calls++;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("recv");
		if (!n)
			break;
		if (!bytes && cfd >= 0 && ioctl(cfd, PERF_EVENT_IOC_ENABLE, 0))
			cycles_err = errno;
		if (!bytes)
			t0 = now();
		if (memcmp(buf, ref + bytes % PERIOD, n)) {
			for (i = 0; i < (size_t)n; i++) {
				if (buf[i] == ref[(bytes + i) % PERIOD])
					continue;
				if (first_bad < 0)
					first_bad = bytes + i;
				errors++;
			}
		}
		bytes += n;
		if (marker_fd >= 0 &&
		    dprintf(marker_fd, "rxkit rx %llu\n", bytes) < 0)
			die("writing the -m marker");
		if (delay_us && (!slow_bytes || bytes < slow_bytes))
			usleep(delay_us);
	}
	insn_mark_end();
	t1 = now();
	if (!bytes)
		t1 = t0;
	printf("rxkit-bench: rx bytes=%llu seconds=%.6f gbps=%.4f mibps=%.2f",
	       bytes, t1 - t0, t1 > t0 ? bytes * 8 / (t1 - t0) / 1e9 : 0,
	       t1 > t0 ? bytes / (t1 - t0) / 1048576 : 0);
	printf(" recv_calls=%llu errors=%llu first_bad=%lld result=%s\n",
	       calls, errors, first_bad,
	       !errors && (!expect || bytes == expect) ? "ok" : "fail");
	if (cycles_cpu >= 0)
		cycles_report(cfd);
	close(fd);
	return !errors && (!expect || bytes == expect) ? 0 : 1;
}

static int do_tx(int cpu, size_t wsize, unsigned long long total, const char *addr)
{
	unsigned long long sent = 0;
	size_t n;
	int fd;

	pin(cpu);
	/* Sleeps of tens of microseconds: no 50 us timer slack on top. */
	if (gap_us && prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL))
		die("PR_SET_TIMERSLACK");
	fd = open_addr(addr, 0);
	while (sent < total) {
		n = total - sent < wsize ? total - sent : wsize;
		if (write_all(fd, ref + sent % PERIOD, n))
			die("write");
		sent += n;
		if (gap_us)
			usleep(gap_us);
	}
	if (shutdown(fd, SHUT_WR))
		die("shutdown");
	/* Wait for the receiver's close: the bytes are all read then. */
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

static int do_pong(int cpu, const char *addr)
{
	ssize_t n;
	int fd;

	pin(cpu);
	fd = open_addr(addr, 1);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write_all(fd, buf, n))
			die("write");
	close(fd);
	return n < 0 ? 2 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int do_ping(int cpu, size_t size, unsigned long count, const char *addr)
{
	double *rtt, t0, sum = 0;
	unsigned long i;
	size_t got;
	ssize_t n;
	int fd;

	if (!count || count > MAX_PINGS)
		fail_usage("count out of range:", "-n");
	rtt = calloc(count, sizeof(*rtt));
	if (!rtt)
		die("calloc");
	pin(cpu);
	fd = open_addr(addr, 0);
	for (i = 0; i < count; i++) {
		t0 = now();
		if (write_all(fd, ref + i % PERIOD, size))
			die("write");
		for (got = 0; got < size; got += n) {
			n = read(fd, buf + got, size - got);
			if (n <= 0)
				die("read of the echo");
		}
		rtt[i] = (now() - t0) * 1e6;
		if (memcmp(buf, ref + i % PERIOD, size)) {
			fprintf(stderr, "rxkit-bench: ping: error: echo %lu differs\n", i);
			return 1;
		}
		sum += rtt[i];
	}
	close(fd);
	qsort(rtt, count, sizeof(*rtt), cmp_double);
	printf("rxkit-bench: ping count=%lu size=%zu mean_us=%.3f median_us=%.3f",
	       count, size, sum / count, rtt[count / 2]);
	printf(" p99_us=%.3f min_us=%.3f max_us=%.3f\n",
	       rtt[(count * 99) / 100], rtt[0], rtt[count - 1]);
	free(rtt);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long n = 0, size = 0;
	unsigned int timeout = 600, delay = 0;
	int opt, cpu = -1, lowat = 0, i;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		help(stdout);
		return 0;
	}
	if (argc < 3)
		fail_usage("a mode and an address are needed, got", argc > 1 ? argv[1] : "");
	mode = argv[1];
	for (i = 0; i < MAX_IO + PERIOD; i++)
		ref[i] = (i * 7 + 3) % PERIOD;
	optind = 2;
	while ((opt = getopt(argc, argv, "c:r:L:d:S:m:C:p:n:w:s:t:R:")) != -1) {
		switch (opt) {
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'L':
			lowat = (int)parse_size(optarg);
			break;
		case 'd':
			delay = (unsigned int)parse_size(optarg);
			break;
		case 'S':
			slow_bytes = parse_size(optarg);
			break;
		case 'm':
			marker_fd = open(optarg, O_WRONLY | O_APPEND);
			if (marker_fd < 0)
				die(optarg);
			break;
		case 'C':
			cycles_cpu = atoi(optarg);
			if (cycles_cpu < 0)
				fail_usage("-C needs a CPU number, got", optarg);
			break;
		case 'p':
			gap_us = (unsigned int)parse_size(optarg);
			break;
		case 'n':
			n = parse_size(optarg);
			break;
		case 'r':
		case 'w':
		case 's':
			size = parse_size(optarg);
			if (!size || size > MAX_IO)
				fail_usage("size out of range (1 B - 1 MiB):", optarg);
			break;
		case 't':
			timeout = (unsigned int)parse_size(optarg);
			break;
		case 'R':
			retry_secs = (unsigned int)parse_size(optarg);
			break;
		default:
			help(stderr);
			return 2;
		}
	}
	if (optind != argc - 1)
		fail_usage("one address is needed, got", optind < argc ? argv[argc - 1] : "none");
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	alarm(timeout);
	if (!strcmp(mode, "rx"))
		return do_rx(cpu, size ? size : 65536, lowat, delay, n, argv[optind]);
	if (!strcmp(mode, "tx")) {
		if (!n)
			fail_usage("tx needs -n BYTES, got", "none");
		return do_tx(cpu, size ? size : 65536, n, argv[optind]);
	}
	if (!strcmp(mode, "pong"))
		return do_pong(cpu, argv[optind]);
	if (!strcmp(mode, "ping"))
		return do_ping(cpu, size ? size : 64, n ? n : 10000, argv[optind]);
	fail_usage("unknown mode", mode);
	return 2;
}
