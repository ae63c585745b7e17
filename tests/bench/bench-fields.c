// SPDX-License-Identifier: MIT
/*
 * What every record's fields go through, per mount: a statmount capture
 * (conversion and storage), reading every record back (views), diffing
 * two captures, and a snapshot's wire encoding and decoding. Two tables:
 * bind mounts of one filesystem (one interned superblock) and tmpfs
 * mounts each with options of their own (one superblock per mount).
 * Best of ROUNDS; public API only, so the same file measures any version.
 *
 * usage: bench-fields [N] [ROUNDS]   (needs root: mounts in a private
 * mount namespace, see setup.c)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap.h"
#include "setup.h"

#define BASE "/tmp/mntsnap-bench-fields"
/* every field a statmount capture gives, whatever the header's FULL holds */
#define MASK_STATMOUNT ((1U << 19) - 1)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct mntsnap_snapshot *capture(uint32_t mask)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .mask = mask,
		     .backend = MNTSNAP_BACKEND_STATMOUNT);
	struct mntsnap_snapshot *s;

	if (mntsnap_capture(&o, &s))
		bench_die("capture");
	return s;
}

static void min_of(double *best, double t)
{
	if (!*best || t < *best)
		*best = t;
}

static void run(const char *setup, unsigned rounds)
{
	double t_cap = 0, t_full = 0, t_get = 0, t_diff = 0, t_enc = 0, t_dec = 0;
	size_t n = 0, len = 0;

	for (unsigned k = 0; k < rounds; k++) {
		struct mntsnap_snapshot *a, *b, *c;
		struct mntsnap_mount m;
		struct mntsnap_diff *d;
		struct stat st;
		uint64_t sum = 0;
		void *buf;
		double t0;
		int fd;

		t0 = now();
		a = capture(MNTSNAP_MASK_DEFAULT);
		min_of(&t_cap, now() - t0);
		t0 = now();
		b = capture(MASK_STATMOUNT);
		min_of(&t_full, now() - t0);
		n = mntsnap_snapshot_count(b);
		t0 = now();
		for (size_t i = 0; i < n; i++)
			if (!mntsnap_snapshot_get(b, i, &m))
				sum += m.id + (unsigned char)m.fs_type[0];
		min_of(&t_get, now() - t0);
		if (!sum)
			bench_die("get");
		t0 = now();
		if (mntsnap_diff(a, b, &d))
			bench_die("diff");
		min_of(&t_diff, now() - t0);
		mntsnap_diff_free(d);
		fd = memfd_create("bench", MFD_CLOEXEC);
		if (fd < 0)
			bench_die("memfd");
		t0 = now();
		if (mntsnap_snapshot_save_fd(b, fd))
			bench_die("save");
		min_of(&t_enc, now() - t0);
		if (fstat(fd, &st))
			bench_die("fstat");
		len = (size_t)st.st_size;
		buf = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (buf == MAP_FAILED)
			bench_die("mmap");
		t0 = now();
		if (mntsnap_snapshot_load_buf(buf, len, NULL, &c))
			bench_die("load");
		min_of(&t_dec, now() - t0);
		munmap(buf, len);
		close(fd);
		mntsnap_snapshot_free(a);
		mntsnap_snapshot_free(b);
		mntsnap_snapshot_free(c);
	}
	printf("%-6s %6zu mounts  per mount (ns): capture %7.1f  capture-all %7.1f  get %5.1f  "
	       "diff %6.1f  save %5.1f  load %5.1f  (file %zu B)\n",
	       setup, n, t_cap * 1e9 / n, t_full * 1e9 / n, t_get * 1e9 / n, t_diff * 1e9 / n,
	       t_enc * 1e9 / n, t_dec * 1e9 / n, len);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10000;
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 7;
	const char *names[] = { "plain", "opts" };

	if (!n || !rounds) {
		fprintf(stderr, "usage: bench-fields [N] [ROUNDS]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			bench_die("fork");
		if (!pid) {
			mkdir(BASE, 0755);
			if (i)
				bench_setup_opts(BASE, n);
			else
				bench_setup_plain(BASE, n);
			run(names[i], rounds);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	return 0;
}
