// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of the sockmap hand-off test (bpf.h): maps and the sk_skb
 * verdict program, raw instructions through bpf(2), no libbpf.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include "bpf.h"
#include "io.h"

/* Raw BPF instructions (the shapes of the kernel's linux/filter.h). */
#define INSN(c, d, s, o, i)	((struct bpf_insn) {			\
	.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD64_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LDX_MEM(sz, d, s, o)	INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define ST_MEM(sz, d, o, i)	INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define ATOMIC_ADD64(d, s, o)	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
#define JNE_IMM(d, i, o)	INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* A map's fd into a register: the two halves of a BPF_LD_IMM64. */
#define LD_MAP_FD(d, fd)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd)
#define LD_IMM64_HI()		INSN(0, 0, 0, 0, 0)

/* The kernel has bpf(): its file system's mount point (kernel/bpf/inode.c). */
bool bpf_syscall(void)
{
	return !access("/sys/fs/bpf", F_OK);
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int map_create(__u32 type, __u32 value_size, __u32 entries)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = sizeof(__u32);
	attr.value_size = value_size;
	attr.max_entries = entries;
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

int map_update(int fd, __u32 key, const void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)value;
	attr.flags = BPF_ANY;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &attr) ? -errno : 0;
}

int map_delete(int fd, __u32 key)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (uintptr_t)&key;
	return sys_bpf(BPF_MAP_DELETE_ELEM, &attr) ? -errno : 0;
}

int map_lookup(int fd, __u32 key, void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr) ? -errno : 0;
}

/* Put socket fd into the sockmap at key: 0 or -errno. */
int sockmap_add(int map_fd, __u32 key, int fd)
{
	__u64 value = fd;

	return map_update(map_fd, key, &value);
}

int set_mode(int ctl_fd, __u64 mode)
{
	struct ctl c = { .mode = mode };

	return map_update(ctl_fd, CTL_MODE, &c);
}

/*
 * The verdict: r7 = the mode, r9 = the counts; mode 0 counts and returns
 * SK_PASS, anything else counts and returns bpf_sk_redirect_map(skb,
 * sockmap, KEY_UNIX, BPF_F_INGRESS) (SK_PASS with the redirect set, or
 * SK_DROP).
 */
int verdict_load(int ctl_fd, int map_fd, char *log, size_t log_size)
{
	struct bpf_insn prog[] = {
		MOV64_REG(BPF_REG_6, BPF_REG_1),
		LDX_MEM(BPF_W, BPF_REG_8, BPF_REG_1, offsetof(struct __sk_buff, len)),
		ST_MEM(BPF_W, BPF_REG_10, -4, CTL_MODE),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),
		LD_MAP_FD(BPF_REG_1, ctl_fd),
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JNE_IMM(BPF_REG_0, 0, 2),
		MOV64_IMM(BPF_REG_0, SK_DROP),
		EXIT(),
		LDX_MEM(BPF_DW, BPF_REG_7, BPF_REG_0, offsetof(struct ctl, mode)),
		ST_MEM(BPF_W, BPF_REG_10, -4, CTL_COUNTS),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -4),
		LD_MAP_FD(BPF_REG_1, ctl_fd),
		LD_IMM64_HI(),
		CALL(BPF_FUNC_map_lookup_elem),
		JNE_IMM(BPF_REG_0, 0, 2),
		MOV64_IMM(BPF_REG_0, SK_DROP),
		EXIT(),
		MOV64_REG(BPF_REG_9, BPF_REG_0),
		JNE_IMM(BPF_REG_7, MODE_PASS, 5),
		MOV64_IMM(BPF_REG_1, 1),
		ATOMIC_ADD64(BPF_REG_9, BPF_REG_1, offsetof(struct ctl, pass_runs)),
		ATOMIC_ADD64(BPF_REG_9, BPF_REG_8, offsetof(struct ctl, pass_bytes)),
		MOV64_IMM(BPF_REG_0, SK_PASS),
		EXIT(),
		MOV64_IMM(BPF_REG_1, 1),
		ATOMIC_ADD64(BPF_REG_9, BPF_REG_1, offsetof(struct ctl, redir_runs)),
		ATOMIC_ADD64(BPF_REG_9, BPF_REG_8, offsetof(struct ctl, redir_bytes)),
		MOV64_REG(BPF_REG_1, BPF_REG_6),
		LD_MAP_FD(BPF_REG_2, map_fd),
		LD_IMM64_HI(),
		MOV64_IMM(BPF_REG_3, KEY_UNIX),
		MOV64_IMM(BPF_REG_4, BPF_F_INGRESS),
		CALL(BPF_FUNC_sk_redirect_map),
		EXIT(),
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SK_SKB;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = ARRAY_SIZE(prog);
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = log_size;
	attr.log_level = 1;
	return sys_bpf(BPF_PROG_LOAD, &attr);
}

int prog_attach(int prog_fd, int map_fd, __u32 type)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = map_fd;
	attr.attach_bpf_fd = prog_fd;
	attr.attach_type = type;
	return sys_bpf(BPF_PROG_ATTACH, &attr) ? -errno : 0;
}

/* The verdict program's runs so far, pass and redirect. */
__u64 verdict_runs(int ctl_fd)
{
	struct ctl c;

	return map_lookup(ctl_fd, CTL_COUNTS, &c) ? 0 : c.pass_runs + c.redir_runs;
}

/*
 * Wait until the verdict has run more than runs times, at most ms: patch
 * 5's kick runs it at the insert, the baseline at the next packet.
 * Prints how long it took, or that it did not run.
 */
void wait_verdict(int ctl_fd, __u64 runs, unsigned int ms)
{
	__u64 t0 = now_ms();

	while (verdict_runs(ctl_fd) <= runs && now_ms() - t0 < ms)
		usleep(1000);
	if (verdict_runs(ctl_fd) > runs)
		printf("# the verdict ran %llu ms after the insert\n",
		       (unsigned long long)(now_ms() - t0));
	else
		printf("# the verdict did not run within %u ms of the insert\n", ms);
}
