// SPDX-License-Identifier: MIT
/*
 * bench-startup: what capturing a container's mount table adds to a
 * container start, as a runtime does it (doc/containers.md, "Runtimes: capture before
 * exec"): in the container's mount namespace, once its mounts are final,
 *   capture       mntsnap_capture() of the own namespace
 *   handover      mntsnap_snapshot_save_fd() into a pipe and
 *                 mntsnap_snapshot_load_fd() out of it (the parent's side)
 *   save sync     mntsnap_snapshot_save() into the runtime's state dir
 *   save no-sync  the same with MNTSNAP_SAVE_NO_SYNC
 * and the per-container totals capture + handover + save.
 *
 *   bench-startup STATE_DIR [N] [LABEL]     (root; default N 400)
 *
 * The table is a container's: the process unshares a mount namespace,
 * builds a root of its own on tmpfs with the mounts an OCI runtime sets up
 * (proc, /dev tmpfs, devpts, shm, mqueue, sysfs, cgroup2, read-only binds
 * of /proc paths, masked paths, the state dir bound in) and pivots into it.
 * Prints one line per measure: median and 90th percentile in microseconds.
 * tests/bench/startup.sh runs it on tmpfs and on ext4 (a loop device) and
 * writes the table of doc/benchmark-notes.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap.h"

#define ROOT "/tmp/mntsnap-bench-startup-root"

static void die(const char *what)
{
	fprintf(stderr, "bench-startup: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void mnt(const char *src, const char *dir, const char *type, unsigned long fl,
		const char *data)
{
	char p[512];

	snprintf(p, sizeof(p), ROOT "%s", dir);
	mkdir(p, 0755);
	if (mount(src, p, type, fl, data))
		die(p);
}

/* A container's table, the state dir bound at /state. */
static void container(const char *state)
{
	static const char *const masked[] = { "/proc/acpi", "/proc/kcore", "/proc/keys",
					      "/proc/timer_list", "/sys/firmware", NULL };
	static const char *const ro[] = { "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
					  "/proc/sysrq-trigger", NULL };
	char p[512];

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die("private mount namespace");
	mkdir(ROOT, 0755);
	if (mount("rootfs", ROOT, "tmpfs", 0, "size=16m"))
		die(ROOT);
	mnt(state, "/state", NULL, MS_BIND, NULL);
	mnt("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mnt("tmpfs", "/dev", "tmpfs", MS_NOSUID, "mode=755,size=64k");
	mnt("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,mode=620");
	mnt("shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k");
	mnt("mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mnt("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL);
	mnt("cgroup", "/sys/fs/cgroup", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	for (int i = 0; masked[i]; i++) {
		snprintf(p, sizeof(p), ROOT "%s", masked[i]);
		if (mount("tmpfs", p, "tmpfs", MS_RDONLY, "size=4k") && errno != ENOENT &&
		    errno != ENOTDIR)
			die(p);
	}
	for (int i = 0; ro[i]; i++) {
		snprintf(p, sizeof(p), ROOT "%s", ro[i]);
		if (!mount(p, p, NULL, MS_BIND, NULL))
			mount(NULL, p, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
	}
	if (chdir(ROOT) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) ||
	    chdir("/"))
		die("pivot_root");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *label, const char *what, uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	printf("%s\t%s\t%.1f\t%.1f\n", label, what, v[n / 2] / 1000.0, v[n * 9 / 10] / 1000.0);
}

static void handover(const struct mntsnap_snapshot *s)
{
	struct mntsnap_snapshot *back = NULL;
	int p[2];

	/* a container's table fits the pipe: write all, then read */
	if (pipe2(p, O_CLOEXEC))
		die("pipe");
	if (mntsnap_snapshot_save_fd(s, p[1]))
		die("save_fd");
	close(p[1]);
	if (mntsnap_snapshot_load_fd(p[0], NULL, &back))
		die("load_fd");
	close(p[0]);
	mntsnap_snapshot_free(back);
}

enum { CAP, HAND, SYNC, NOSYNC, TOT_SYNC, TOT_NOSYNC, NM };

int main(int argc, char **argv)
{
	static const char *const names[NM] = { "capture", "handover", "save-sync", "save-no-sync",
					       "total-sync", "total-no-sync" };
	MNTSNAP_OPTS(mntsnap_save_opts, nosync, .flags = MNTSNAP_SAVE_NO_SYNC);
	int n = argc > 2 ? atoi(argv[2]) : 400, mounts = 0;
	const char *label = argc > 3 ? argv[3] : "-";
	uint64_t *v[NM];
	char path[64];

	if (argc < 2 || n < 10) {
		fprintf(stderr, "usage: bench-startup STATE_DIR [N >= 10] [LABEL]\n");
		return 2;
	}
	container(argv[1]);
	for (int m = 0; m < NM; m++)
		if (!(v[m] = calloc((size_t)n, sizeof(uint64_t))))
			die("calloc");
	for (int i = -10; i < n; i++) { /* 10 warm-up rounds */
		MNTSNAP_OPTS(mntsnap_capture_opts, o);
		struct mntsnap_snapshot *s = NULL;
		uint64_t t0, t1, t2, t3, t4;

		snprintf(path, sizeof(path), "/state/c%d.snap", (i + 10) % 16);
		t0 = now_ns();
		if (mntsnap_capture(&o, &s))
			die("capture");
		t1 = now_ns();
		handover(s);
		t2 = now_ns();
		if (mntsnap_snapshot_save(s, path))
			die("save");
		t3 = now_ns();
		if (mntsnap_snapshot_save_with(s, path, &nosync))
			die("save --no-sync");
		t4 = now_ns();
		mounts = (int)mntsnap_snapshot_count(s);
		mntsnap_snapshot_free(s);
		if (i < 0)
			continue;
		v[CAP][i] = t1 - t0;
		v[HAND][i] = t2 - t1;
		v[SYNC][i] = t3 - t2;
		v[NOSYNC][i] = t4 - t3;
		v[TOT_SYNC][i] = t3 - t0;
		v[TOT_NOSYNC][i] = (t2 - t0) + (t4 - t3);
	}
	printf("# %s: %d mounts in the container, %d runs; median and p90 in us\n", label, mounts,
	       n);
	for (int m = 0; m < NM; m++) {
		report(label, names[m], v[m], n);
		free(v[m]);
	}
	for (int i = 0; i < 16; i++) { /* leave the state dir as found */
		snprintf(path, sizeof(path), "/state/c%d.snap", i);
		unlink(path);
	}
	return 0;
}
