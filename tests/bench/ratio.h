/* SPDX-License-Identifier: MIT */
/*
 * Every ratio a benchmark prints says which side is faster (or smaller)
 * in words: "1.80x slower than read-mountinfo", "2.10x faster than
 * findmnt". A bare "0.55x faster" reads both ways; here the number is
 * always >= 1 and the word carries the direction.
 */
#ifndef MNTSNAP_BENCH_RATIO_H
#define MNTSNAP_BENCH_RATIO_H
#include <stdio.h>

/* t and ref are times (or any cost where less is better) of this side and the other. */
static inline const char *bench_vs(char *buf, size_t sz, double t, double ref, const char *other)
{
	if (t <= 0 || ref <= 0)
		snprintf(buf, sz, "not comparable with %s", other);
	else if (t > ref * 1.005)
		snprintf(buf, sz, "%.2fx slower than %s", t / ref, other);
	else if (t * 1.005 < ref)
		snprintf(buf, sz, "%.2fx faster than %s", ref / t, other);
	else
		snprintf(buf, sz, "as fast as %s (within 0.5%%)", other);
	return buf;
}

/* The same for sizes: "2.40x smaller than the mountinfo text". */
static inline const char *bench_size_vs(char *buf, size_t sz, double b, double ref,
					const char *other)
{
	if (b <= 0 || ref <= 0)
		snprintf(buf, sz, "not comparable with %s", other);
	else if (b > ref * 1.005)
		snprintf(buf, sz, "%.2fx larger than %s", b / ref, other);
	else if (b * 1.005 < ref)
		snprintf(buf, sz, "%.2fx smaller than %s", ref / b, other);
	else
		snprintf(buf, sz, "as large as %s (within 0.5%%)", other);
	return buf;
}
#endif
