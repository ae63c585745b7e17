// SPDX-License-Identifier: MIT
/*
 * bench-refresh: cost of mntsnap_refresh() after one change in N mounts,
 * against a full capture of the same table, in the same run.
 *
 *   bench-refresh [N] [ROUNDS]      (defaults 10000, 15; needs root)
 *
 * Each round makes one change (alternately: a new tmpfs mount, its
 * umount, a bind remounted read-only, and back), then times a checked
 * refresh of the previous snapshot; then one mount or umount and an
 * ids-only refresh (MNTSNAP_CAPTURE_REFRESH_IDS_ONLY); full captures are
 * timed interleaved with them so all see the same cache and CPU state.
 * Best and median are reported; the target is refresh <= 10% of a full
 * capture. It also prints the saved-snapshot size against the mountinfo
 * text of the same table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap.h"
#include "ratio.h"
#include "setup.h"

#define BASE "/tmp/mntsnap-bench-refresh"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct mntsnap_snapshot *capture(void)
{
	struct mntsnap_snapshot *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);
	int r = mntsnap_capture(&o, &s);

	if (r) {
		errno = -r;
		bench_die("capture");
	}
	return s;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void change(unsigned round)
{
	char p[256];

	switch (round % 4) {
	case 0:
		snprintf(p, sizeof(p), "%s/extra", BASE);
		mkdir(p, 0755);
		if (mount("extra", p, "tmpfs", 0, NULL))
			bench_die("mount extra");
		break;
	case 1:
		snprintf(p, sizeof(p), "%s/extra", BASE);
		if (umount(p))
			bench_die("umount extra");
		break;
	case 2:
	case 3:
		snprintf(p, sizeof(p), "%s/m/%u", BASE, 17);
		if (mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | (round % 4 == 2 ? MS_RDONLY : 0),
			  NULL))
			bench_die("remount");
		break;
	}
}

static size_t file_size(const char *path)
{
	char buf[65536];
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		bench_die(path);
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		n += (size_t)r;
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10000;
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 15;
	double *tf = calloc(rounds, sizeof(double)), *tr = calloc(rounds, sizeof(double));
	double *ti = calloc(rounds, sizeof(double));
	MNTSNAP_OPTS(mntsnap_capture_opts, ids_only, .flags = MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);
	struct mntsnap_snapshot *s;
	size_t text, bin;
	char words[96];

	if (!n || !rounds || !tf || !tr || !ti) {
		fprintf(stderr, "usage: bench-refresh [N] [ROUNDS]\n");
		return 2;
	}
	mkdir(BASE, 0755);
	bench_setup_plain(BASE, n);
	s = capture();
	printf("bench-refresh: %zu mounts in the table, %u rounds\n", mntsnap_snapshot_count(s),
	       rounds);
	for (unsigned i = 0; i < rounds; i++) {
		struct mntsnap_snapshot *full;
		double t0, t1;
		int r;

		change(i);
		t0 = now();
		r = mntsnap_refresh(s);
		t1 = now();
		if (r != 1) {
			fprintf(stderr, "bench-refresh: refresh saw %d changes, expected 1\n", r);
			return 1;
		}
		tr[i] = t1 - t0;
		change(4 * (i / 2) + i % 2); /* mount, umount, mount, ... */
		t0 = now();
		r = mntsnap_refresh_with(s, &ids_only);
		t1 = now();
		if (r != 1) {
			fprintf(stderr, "bench-refresh: ids-only refresh saw %d changes\n", r);
			return 1;
		}
		ti[i] = t1 - t0;
		t0 = now();
		full = capture();
		tf[i] = now() - t0;
		mntsnap_snapshot_free(full);
	}
	qsort(tf, rounds, sizeof(double), cmp_d);
	qsort(tr, rounds, sizeof(double), cmp_d);
	qsort(ti, rounds, sizeof(double), cmp_d);
	printf("full capture   best %8.3f ms  median %8.3f ms\n", tf[0] * 1e3,
	       tf[rounds / 2] * 1e3);
	printf("refresh (1 ch) best %8.3f ms  median %8.3f ms\n", tr[0] * 1e3,
	       tr[rounds / 2] * 1e3);
	printf("refresh ids-only best %6.3f ms  median %8.3f ms\n", ti[0] * 1e3,
	       ti[rounds / 2] * 1e3);
	printf("checked refresh (median): %s\n",
	       bench_vs(words, sizeof(words), tr[rounds / 2], tf[rounds / 2], "a full capture"));
	printf("ids-only refresh (median): %s (goal: at least 10x faster than a full capture)\n",
	       bench_vs(words, sizeof(words), ti[rounds / 2], tf[rounds / 2], "a full capture"));

	if (mntsnap_snapshot_save(s, BASE "/snap.bin"))
		bench_die("save");
	text = file_size("/proc/self/mountinfo");
	bin = file_size(BASE "/snap.bin");
	printf("snapshot %zu bytes, mountinfo %zu bytes: the snapshot file is %s (goal: at "
	       "least 1.67x smaller than the text)\n",
	       bin, text, bench_size_vs(words, sizeof(words), (double)bin, (double)text, "the text"));
	mntsnap_snapshot_free(s);
	free(tf);
	free(tr);
	free(ti);
	return 0;
}
