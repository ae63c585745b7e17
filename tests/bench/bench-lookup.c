// SPDX-License-Identifier: MIT
/*
 * Lookup cost in a snapshot (lib/lookup.c) against a brute-force scan of
 * the records, at 1k, 10k and 50k mounts. No mounts are made: the table
 * is mountinfo text (a tree three levels deep, every 16th mount point
 * stacked twice, sources shared by 8 mounts), parsed once. Per lookup
 * kind: ns per lookup by the index (after the first lookup built it), the
 * same by a scan (every record read with mntsnap_snapshot_get and its
 * strings compared, as a caller would without the lookups), the ratio,
 * and what building the index on the first lookup cost. No timing
 * assertions.
 *
 *   bench-lookup [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mntsnap.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * / and /m, then /m/A (100), /m/A/B (1000), /m/A/B/C (the rest), each
 * under its parent; every 16th mount point stacked twice (the second
 * mounted on the first); sources shared by 8 mounts.
 */
static char *table(unsigned n, size_t *len)
{
	size_t cap = (size_t)n * 128 + 256, o = 0;
	char *t = malloc(cap), mp[96];
	unsigned id = 102;

	o += (size_t)snprintf(t + o, cap - o, "100 1 0:1 / / rw - tmpfs root rw\n");
	o += (size_t)snprintf(t + o, cap - o, "101 100 0:2 / /m rw - tmpfs m rw\n");
	for (unsigned i = 0; id < 100 + n; i++) {
		unsigned parent, j;

		if (i < 100) {
			parent = 101;
			snprintf(mp, sizeof(mp), "/m/%u", i);
		} else if (i < 1100) {
			j = i - 100;
			parent = 102 + j / 10;
			snprintf(mp, sizeof(mp), "/m/%u/%u", j / 10, j % 10);
		} else {
			j = (i - 1100) % 1000;
			parent = 202 + j;
			snprintf(mp, sizeof(mp), "/m/%u/%u/%u", j / 10, j % 10, i);
		}
		/* parents are ids of the first 1100 mount points: never stacked ones */
		o += (size_t)snprintf(t + o, cap - o, "%u %u 0:%u / %s rw - tmpfs src%u rw\n", id,
				      parent, id, mp, i / 8);
		id++;
		if (i % 16 == 5 && i >= 1100 && id < 100 + n) {
			o += (size_t)snprintf(t + o, cap - o, "%u %u 0:%u / %s rw - tmpfs src%u rw\n",
					      id, id - 1, id, mp, i / 8);
			id++;
		}
	}
	*len = o;
	return t;
}

static long scan_mount_point(const struct mntsnap_snapshot *s, const char *mp)
{
	size_t n = mntsnap_snapshot_count(s);
	struct mntsnap_mount m;
	long hit = -1;

	for (size_t i = 0; i < n; i++)
		if (!mntsnap_snapshot_get(s, i, &m) && !strcmp(m.mount_point, mp))
			hit = (long)i;
	return hit;
}

static long scan_source(const struct mntsnap_snapshot *s, const char *src)
{
	size_t n = mntsnap_snapshot_count(s);
	struct mntsnap_mount m;

	for (size_t i = 0; i < n; i++)
		if (!mntsnap_snapshot_get(s, i, &m) && !strcmp(m.source, src))
			return (long)i;
	return -1;
}

/* the mount a path is on, by scans: the longest mount point it starts with */
static long scan_path(const struct mntsnap_snapshot *s, const char *path)
{
	size_t n = mntsnap_snapshot_count(s), best = 0;
	struct mntsnap_mount m;
	long hit = -1;

	for (size_t i = 0; i < n; i++) {
		size_t l;

		mntsnap_snapshot_get(s, i, &m);
		l = strlen(m.mount_point);
		if ((l == 1 || (!strncmp(m.mount_point, path, l) && (!path[l] || path[l] == '/'))) &&
		    l >= best) {
			best = l;
			hit = (long)i;
		}
	}
	return hit;
}

int main(int argc, char **argv)
{
	static const unsigned sizes[] = { 1000, 10000, 50000 };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	volatile long sink = 0;

	printf("%-8s %-16s %12s %12s %9s %14s\n", "mounts", "lookup", "index ns", "scan ns",
	       "scan/idx", "first (build)");
	for (size_t z = 0; z < (quick ? 1 : 3); z++) {
		unsigned n = sizes[z];
		size_t len;
		char *text = table(n, &len);
		struct mntsnap_snapshot *s = NULL;
		int rounds = quick ? 200 : 20000, srounds = quick ? 5 : (n > 10000 ? 20 : 200);
		char paths[64][96], mps[64][96], srcs[64][16];
		const char *kinds[] = { "find_path", "find_mount_point", "next_source" };

		if (mntsnap_parse_mountinfo(text, len, NULL, &s)) {
			fprintf(stderr, "bench-lookup: parse failed\n");
			return 2;
		}
		for (int k = 0; k < 64; k++) {
			struct mntsnap_mount m;

			mntsnap_snapshot_get(s, (size_t)(k * 7919u % mntsnap_snapshot_count(s)), &m);
			snprintf(mps[k], sizeof(mps[k]), "%s", m.mount_point);
			snprintf(paths[k], sizeof(paths[k]), "%s/usr/lib/x", m.mount_point);
			snprintf(srcs[k], sizeof(srcs[k]), "%s", m.source);
		}
		for (int kind = 0; kind < 3; kind++) {
			double t0, first, idx, scan;

			/* a fresh copy: the first lookup builds the index */
			mntsnap_snapshot_free(s);
			s = NULL;
			mntsnap_parse_mountinfo(text, len, NULL, &s);
			t0 = now();
			sink += kind == 0   ? mntsnap_snapshot_find_path(s, paths[0])
				: kind == 1 ? mntsnap_snapshot_find_mount_point(s, mps[0])
					    : mntsnap_snapshot_next_source(s, srcs[0], -1);
			first = now() - t0;
			t0 = now();
			for (int r = 0; r < rounds; r++) {
				int k = r & 63;

				sink += kind == 0   ? mntsnap_snapshot_find_path(s, paths[k])
					: kind == 1 ? mntsnap_snapshot_find_mount_point(s, mps[k])
						    : mntsnap_snapshot_next_source(s, srcs[k], -1);
			}
			idx = (now() - t0) / rounds;
			t0 = now();
			for (int r = 0; r < srounds; r++) {
				int k = r & 63;

				sink += kind == 0   ? scan_path(s, paths[k])
					: kind == 1 ? scan_mount_point(s, mps[k])
						    : scan_source(s, srcs[k]);
			}
			scan = (now() - t0) / srounds;
			printf("%-8zu %-16s %12.0f %12.0f %9.0f %14.0f\n", mntsnap_snapshot_count(s),
			       kinds[kind], idx, scan, scan / idx, first);
		}
		mntsnap_snapshot_free(s);
		free(text);
	}
	return sink == 42 ? 1 : 0;
}
