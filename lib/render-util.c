// SPDX-License-Identifier: MIT
/*
 * What every renderer shares, below all of them: the growing output
 * buffer, fast decimal numbers, and the stream's final status. No
 * renderer calls another's helpers, and none calls back up into the
 * format table (render.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "render.h"

int mntsnap__buf_grow(struct mntsnap__buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->err)
		return b->err;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return b->err = -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* "00".."99": two digits per division (ids are the bulk of a record) */
static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Digits of v: compares, no division (ids and dev numbers are short). */
static unsigned ndigits(uint64_t v)
{
	unsigned n = 1;

	for (uint64_t p = 10; n < 20 && v >= p; p *= 10)
		n++;
	return n;
}

void mntsnap__put_u64(struct mntsnap__buf *b, uint64_t v)
{
	unsigned n = ndigits(v);
	char *o;

	if (b->len + 20 > b->cap && mntsnap__buf_grow(b, 20))
		return;
	/* written in place from the last digit back, two per division */
	o = b->p + b->len + n;
	b->len += n;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--o = digits2[d + 1];
		*--o = digits2[d];
	}
	if (v >= 10) {
		*--o = digits2[v * 2 + 1];
		*--o = digits2[v * 2];
	} else {
		*--o = (char)('0' + v);
	}
}

int mntsnap__buf_flush(struct mntsnap__buf *b, FILE *f)
{
	if (b->err)
		return b->err;
	if (b->len && fwrite(b->p, 1, b->len, f) != b->len)
		return errno ? -errno : -EIO; /* a full disk is not an I/O error */
	b->len = 0;
	return 0;
}

int mntsnap__stream_status(FILE *f)
{
	errno = 0;
	if (!fflush(f) && !ferror(f))
		return 0;
	return errno ? -errno : -EIO;
}
