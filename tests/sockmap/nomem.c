// SPDX-License-Identifier: GPL-2.0
/*
 * Forced allocation failures for the case quiet.partial_head_nomem (nomem.h):
 * failslab and fail_page_alloc of debugfs (CONFIG_FAILSLAB,
 * CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS), each made to
 * fail every allocation that cannot sleep and whose stack holds an address
 * of one function (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER: require-start,
 * require-end), at most FAULT_TIMES times; the failures injected are what
 * "times" lost.  And the one-packet write that makes a nonlinear skb.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "io.h"
#include "nomem.h"

#define DEBUGFS		"/sys/kernel/debug"

static const char * const attrs[] = { "failslab", "fail_page_alloc", NULL };

static int attr_open(const char *attr, const char *file, int flags)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", attr, file);
	return open(path, flags);
}

static int put(const char *attr, const char *file, const char *val)
{
	int fd = attr_open(attr, file, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static long get(const char *attr, const char *file)
{
	int fd = attr_open(attr, file, O_RDONLY);
	char val[32] = "";
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	return n < 0 ? -errno : strtol(val, NULL, 0);
}

/* fn's text: its address and the next higher one of /proc/kallsyms. */
static int text_of(struct fault *ft)
{
	unsigned long a, start = 0, end = ~0UL;
	char type, name[256];
	FILE *k = fopen("/proc/kallsyms", "r");

	if (!k)
		return -errno;
	while (fscanf(k, "%lx %c %255s%*[^\n]", &a, &type, name) == 3)
		if (!strcmp(name, ft->fn))
			start = a;
	rewind(k);
	while (start && fscanf(k, "%lx %c %255s%*[^\n]", &a, &type, name) == 3)
		if (a > start && a < end)
			end = a;
	fclose(k);
	if (!start || end == ~0UL)
		return -ENOENT;
	ft->start = start;
	ft->end = end;
	return 0;
}

/*
 * What fault_arm() needs, or why it cannot be had (why: a SKIP reason):
 * debugfs (mounted here if it is not), both attributes with a stack
 * filter, fn's address.
 */
int fault_prepare(struct fault *ft, const char *fn, char *why, size_t len)
{
	struct stat st;
	size_t i;

	memset(ft, 0, sizeof(*ft));
	snprintf(ft->fn, sizeof(ft->fn), "%s", fn);
	if (stat(DEBUGFS "/failslab", &st) &&
	    mount("debugfs", DEBUGFS, "debugfs", 0, NULL) && errno != EBUSY) {
		snprintf(why, len, "no debugfs at " DEBUGFS ": %s (CONFIG_DEBUG_FS)",
			 strerror(errno));
		return -ENOENT;
	}
	for (i = 0; attrs[i]; i++) {
		if (get(attrs[i], "require-start") < 0) {
			snprintf(why, len, "no " DEBUGFS "/%s/require-start: %s", attrs[i],
				 "no stack-filtered fault injection in this kernel (the bpf flavour has it: kconfig/fault-inject.config)");
			return -ENOENT;
		}
	}
	if (text_of(ft)) {
		snprintf(why, len, "%s: no address in /proc/kallsyms", fn);
		return -ENOENT;
	}
	return 0;
}

int fault_arm(struct fault *ft)
{
	char start[32], end[32], times[16];
	size_t i;
	int err = 0;

	snprintf(start, sizeof(start), "0x%lx", ft->start);
	snprintf(end, sizeof(end), "0x%lx", ft->end);
	snprintf(times, sizeof(times), "%d", FAULT_TIMES);
	for (i = 0; attrs[i] && !err; i++) {
		const char *a = attrs[i];

		err = put(a, "require-start", start) ?: put(a, "require-end", end) ?:
		      put(a, "stacktrace-depth", "32") ?: put(a, "ignore-gfp-wait", "Y") ?:
		      put(a, "task-filter", "N") ?: put(a, "space", "0") ?:
		      put(a, "interval", "1") ?: put(a, "verbose", "1") ?:
		      put(a, "times", times);
		if (!err && !strcmp(a, "fail_page_alloc"))
			err = put(a, "min-order", "0");
		if (!err)
			err = put(a, "probability", "100");
	}
	ft->armed = true;
	return err;
}

/* The failures injected since fault_arm(). */
long fault_count(const struct fault *ft)
{
	long n = 0, t;
	size_t i;

	for (i = 0; ft->armed && attrs[i]; i++) {
		t = get(attrs[i], "times");
		if (t < 0)
			return t;
		n += FAULT_TIMES - t;
	}
	return n;
}

/* No more failures; the count of fault_count(). */
long fault_disarm(struct fault *ft)
{
	long n;
	size_t i;

	if (!ft->armed)
		return 0;
	for (i = 0; attrs[i]; i++)
		put(attrs[i], "probability", "0");
	n = fault_count(ft);
	ft->armed = false;
	return n;
}

/*
 * Records f->first to limit - 1 in one send(): over loopback one packet,
 * which virtio_vsock_alloc_skb() makes nonlinear (its payload in page
 * frags) from about 32 KiB on.  0 or a negative errno.
 */
int send_burst(struct flow *f, __u32 limit)
{
	size_t len = (size_t)(limit - f->first) * REC;
	unsigned char *buf = malloc(len);
	__u32 r;
	int err;

	if (!buf)
		return -ENOMEM;
	stream_fill(buf, (__u64)f->first * REC, len);
	for (r = f->first; r < limit; r++)
		f->eb[r] = f->epoch;
	f->started = limit;
	err = send_all(f->fd, buf, len);
	free(buf);
	if (err)
		return err;
	f->first = limit;
	f->limit = limit;
	return 0;
}
