// SPDX-License-Identifier: GPL-2.0
/*
 * The stream of the sockmap hand-off test (check.h): its bytes, what each
 * side read of it, and the violations found.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pieces.h"

void violation(struct check *c, const char *fmt, ...)
{
	va_list ap;

	c->errors++;
	if (c->shown++ >= SHOW_MAX)
		return;
	va_start(ap, fmt);
	fputs("# not as written: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

#define MIX_ADD	0x9e3779b97f4a7c15ULL
#define MIX_M1	0xbf58476d1ce4e5b9ULL
#define MIX_M2	0x94d049bb133111ebULL

/* splitmix64's finalizer: a bijection of 64-bit words. */
static __u64 mix(__u64 x)
{
	x += MIX_ADD;
	x = (x ^ (x >> 30)) * MIX_M1;
	x = (x ^ (x >> 27)) * MIX_M2;
	return x ^ (x >> 31);
}

/* x from x ^ (x >> s). */
static __u64 unshift(__u64 y, unsigned int s)
{
	__u64 x = y;
	unsigned int i;

	for (i = s; i < 64; i += s)
		x = y ^ (x >> s);
	return x;
}

/* The inverse of odd m modulo 2^64 (Newton: each step doubles the bits). */
static __u64 inverse(__u64 m)
{
	__u64 x = m;
	int i;

	for (i = 0; i < 5; i++)
		x *= 2 - m * x;
	return x;
}

__u64 unmix(__u64 x)
{
	x = unshift(x, 31);
	x = unshift(x * inverse(MIX_M2), 27);
	x = unshift(x * inverse(MIX_M1), 30);
	return x - MIX_ADD;
}

/* Byte o of the stream: byte o % 8, little endian, of word o / 8. */
unsigned char stream_byte(__u64 o)
{
	return (unsigned char)(mix(o >> 3) >> (8 * (o & 7)));
}

void stream_fill(unsigned char *p, __u64 o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = stream_byte(o + i);
}

/* The bytes read on n sides. */
__u64 side_total(const struct side *s, int n)
{
	return s[0].bytes + (n > 1 ? s[1].bytes : 0);
}

/* How many bytes of s from its byte p are the stream's from offset o. */
size_t run_len(const struct side *s, size_t p, __u64 o, __u64 end,
	       size_t max)
{
	size_t k = 0;

	while (k < max && p + k < s->bytes && o + k < end &&
	       s->data[p + k] == stream_byte(o + k))
		k++;
	return k;
}

/* Keep n received bytes of side s and the epoch of their read. */
void side_feed(struct check *c, struct side *s, const unsigned char *p,
	       size_t n)
{
	__u32 now = __atomic_load_n(&c->f->epoch, __ATOMIC_ACQUIRE);

	if (s->bytes + n > s->cap) {
		size_t cap = s->cap ? s->cap : 1 << 20;
		unsigned char *d;

		while (cap < s->bytes + n)
			cap *= 2;
		d = realloc(s->data, cap);
		if (!d) {
			violation(c, "%s: no memory for %zu bytes", s->name, cap);
			return;
		}
		s->data = d;
		s->cap = cap;
	}
	if (s->reads == s->reads_cap) {
		size_t cap = s->reads_cap ? 2 * s->reads_cap : 4096;
		size_t *e = realloc(s->read_end, cap * sizeof(*e));
		__u32 *ep = e ? realloc(s->read_epoch, cap * sizeof(*ep)) : NULL;

		if (e)
			s->read_end = e;
		if (!ep) {
			violation(c, "%s: no memory for %zu reads", s->name, cap);
			return;
		}
		s->read_epoch = ep;
		s->reads_cap = cap;
	}
	memcpy(s->data + s->bytes, p, n);
	s->bytes += n;
	s->read_end[s->reads] = s->bytes;
	s->read_epoch[s->reads++] = now;
}

void side_free(struct side *s)
{
	free(s->data);
	free(s->read_end);
	free(s->read_epoch);
	free(s->pieces);
}
