/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced allocation failures under one kernel function (nomem.c): the
 * fault injection of Documentation/fault-injection/fault-injection.rst,
 * failslab and fail_page_alloc, each limited by its stack filter to
 * allocations whose call stack passes through that function.
 */
#ifndef SOCKMAP_NOMEM_H
#define SOCKMAP_NOMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "check.h"

/* Failures each attribute may inject while armed (its "times"). */
#define FAULT_TIMES	1000

struct fault {
	char fn[64];			/* the function */
	unsigned long start, end;	/* its text, from /proc/kallsyms */
	bool armed;
};

int fault_prepare(struct fault *ft, const char *fn, char *why, size_t len);
int fault_arm(struct fault *ft);
long fault_count(const struct fault *ft);
long fault_disarm(struct fault *ft);
int send_burst(struct flow *f, __u32 limit);

#endif
