/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF side of the sockmap hand-off test (bpf.c). */
#ifndef SOCKMAP_BPF_H
#define SOCKMAP_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define KEY_VSOCK	0
#define KEY_UNIX	1
#define MODE_PASS	0
#define MODE_REDIRECT	1

/*
 * The control map's value.  Element CTL_MODE: the mode the test sets;
 * element CTL_COUNTS: the verdict program's counts (apart, so that setting
 * the mode never writes over a count the program is adding to).
 */
#define CTL_MODE	0
#define CTL_COUNTS	1

struct ctl {
	__u64 mode;
	__u64 pass_runs;
	__u64 pass_bytes;
	__u64 redir_runs;
	__u64 redir_bytes;
};

/* The kernel has bpf(): its file system's mount point (kernel/bpf/inode.c). */
bool bpf_syscall(void);
int map_create(__u32 type, __u32 value_size, __u32 entries);
int map_update(int fd, __u32 key, const void *value);
int map_delete(int fd, __u32 key);
int map_lookup(int fd, __u32 key, void *value);
int sockmap_add(int map_fd, __u32 key, int fd);
int set_mode(int ctl_fd, __u64 mode);
int verdict_load(int ctl_fd, int map_fd, char *log, size_t log_size);
int prog_attach(int prog_fd, int map_fd, __u32 type);
__u64 verdict_runs(int ctl_fd);
void wait_verdict(int ctl_fd, __u64 runs, unsigned int ms);

#endif
