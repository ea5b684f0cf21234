/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxkit_scaled(): a fixed wait times the factor of RXKIT_TIME_SCALE.
 *
 * images/mkinitramfs forces this header into every compile of a tree's
 * tools/testing/vsock programs, where the lines tests/data/waits marks
 * "scale" are rewritten to call it; the kit's own tools include it.  The
 * suites set the factor by the guest's accelerator (tests/data/time-scale),
 * the same for baseline and patched, so that a bound which emulation can
 * overrun (a poll for a completion, a case's timeout) does not fail a
 * kernel that is right; a wait that the test measures stays as written.
 * Unset, or not a number from 1 to 1000: 1, upstream's values.  The result
 * saturates at INT_MAX, as the programs print and pass an int.
 */
#ifndef RXKIT_TIME_SCALE_H
#define RXKIT_TIME_SCALE_H

#include <limits.h>
#include <stdlib.h>

static inline int rxkit_scaled(long long value)
{
	static long long factor;

	if (!factor) {
		const char *s = getenv("RXKIT_TIME_SCALE");
		char *end = NULL;

		factor = s ? strtoll(s, &end, 10) : 1;
		if (!s || !*s || *end || factor < 1 || factor > 1000)
			factor = 1;
	}
	value *= factor;
	return value > INT_MAX ? INT_MAX : (int)value;
}

#endif /* RXKIT_TIME_SCALE_H */
