// SPDX-License-Identifier: GPL-2.0
/*
 * rxkit-insn: a QEMU TCG plugin counting the guest instructions each vCPU
 * executes, read at marks the host sets: the deterministic CPU cost of a
 * benchmark point without a PMU (bench/bench.sh, built by bench/mkplugin
 * against the qemu-plugin.h of the QEMU that runs it).
 *
 *   qemu-system-x86_64 -plugin librxkit-insn.so,fifo=PATH,out=FILE ...
 *
 * Each line written to the FIFO PATH (e.g. "begin 3") appends to FILE
 *
 *   LABEL vcpu0=N vcpu1=N ...
 *
 * the instructions each vCPU executed so far; at exit "exit vcpu0=N ...".
 *
 * The guest marks too: code that executes the no-op
 *
 *   nopl 0x4b5852NN(%rax,%rax,1)    0f 1f 84 00 NN 52 58 4b ("RXK")
 *
 * (or any longer instruction ending in those 8 bytes, e.g. with a 0x67
 * prefix in real mode) appends "gbegin I ..." for NN 01 and "gend I ..."
 * for NN 02, I counting each kind from 0: rxkit-bench rx marks its
 * receive loop so, and the count holds the transfer alone.
 *
 * Instructions are counted a translation block at a time, when the block
 * starts: a block left early (an exception, an interrupt) counts in full,
 * an error of a few instructions per exception; a guest mark sees the
 * whole block it is in.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_VCPUS 64

static unsigned long long insns[MAX_VCPUS];
static int nr_vcpus;
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* Each vCPU thread adds to its own slot; the reader loads them. */
static void tb_exec(unsigned int vcpu, void *udata)
{
	if (vcpu < MAX_VCPUS)
		__atomic_fetch_add(&insns[vcpu], (uintptr_t)udata, __ATOMIC_RELAXED);
}

static void mark(const char *label);

/* The guest's marks: NN 1 begin, 2 end; each kind numbered from 0. */
static const unsigned char magic_head[] = { 0x0f, 0x1f, 0x84, 0x00 };
static const unsigned char magic_tail[] = { 0x52, 0x58, 0x4b };
static unsigned int nr_guest_marks[3];

static void guest_mark(unsigned int vcpu, void *udata)
{
	unsigned int code = (uintptr_t)udata;
	char label[32];

	snprintf(label, sizeof(label), "%s %u", code == 1 ? "gbegin" : "gend",
		 __atomic_fetch_add(&nr_guest_marks[code], 1, __ATOMIC_RELAXED));
	mark(label);
}

/* guest_mark_code - 1 or 2 when @insn ends in a guest mark, else 0. */
static unsigned int guest_mark_code(const struct qemu_plugin_insn *insn)
{
	size_t size = qemu_plugin_insn_size(insn);
	const unsigned char *d = qemu_plugin_insn_data(insn);

	if (size < 8)
		return 0;
	d += size - 8;
	if (memcmp(d, magic_head, sizeof(magic_head)) ||
	    memcmp(d + 5, magic_tail, sizeof(magic_tail)) || (d[4] != 1 && d[4] != 2))
		return 0;
	return d[4];
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct qemu_plugin_insn *insn;
	unsigned int code;

	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)n);
	for (i = 0; i < n; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		code = guest_mark_code(insn);
		if (code)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, guest_mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)code);
	}
}

static void mark(const char *label)
{
	int i;

	pthread_mutex_lock(&out_lock);
	fprintf(out, "%s", label);
	for (i = 0; i < nr_vcpus; i++)
		fprintf(out, " vcpu%d=%llu", i,
			__atomic_load_n(&insns[i], __ATOMIC_RELAXED));
	fputc('\n', out);
	fflush(out);
	pthread_mutex_unlock(&out_lock);
}

/* The FIFO opened read-write: its reads never see end of file. */
static void *marks(void *arg)
{
	char line[128];
	FILE *f = arg;

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0])
			mark(line);
	}
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	mark("exit");
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *fifo = NULL, *file = NULL;
	pthread_t thread;
	FILE *f;
	int i, fd;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "fifo=", 5))
			fifo = argv[i] + 5;
		else if (!strncmp(argv[i], "out=", 4))
			file = argv[i] + 4;
		else
			fprintf(stderr, "rxkit-insn: error: unknown argument '%s'\n", argv[i]);
	}
	if (!fifo || !file || !info->system_emulation) {
		fprintf(stderr, "rxkit-insn: error: %s\n",
			"needs fifo=PATH,out=FILE and a system emulator");
		return -1;
	}
	nr_vcpus = info->system.max_vcpus < MAX_VCPUS ? info->system.max_vcpus : MAX_VCPUS;
	out = fopen(file, "w");
	if (!out) {
		fprintf(stderr, "rxkit-insn: error: %s: %s\n", file, strerror(errno));
		return -1;
	}
	fd = open(fifo, O_RDWR);
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f) {
		fprintf(stderr, "rxkit-insn: error: %s: %s\n", fifo, strerror(errno));
		return -1;
	}
	if (pthread_create(&thread, NULL, marks, f)) {
		fprintf(stderr, "rxkit-insn: error: no thread\n");
		return -1;
	}
	pthread_detach(thread);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
