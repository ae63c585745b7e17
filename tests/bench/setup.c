// SPDX-License-Identifier: MIT
/* Mount setups for bench-mounts (see setup.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "setup.h"

void bench_die(const char *what)
{
	fprintf(stderr, "bench-mounts: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void xmount(const char *src, const char *dst, const char *type, unsigned long fl,
		   const char *data)
{
	char what[1100];

	if (!mount(src, dst, type, fl, data))
		return;
	snprintf(what, sizeof(what), "mount %s on %s", src ? src : "(null)", dst);
	bench_die(what);
}

/* Everything after this happens in a namespace that dies with the process. */
static void private_ns(void)
{
	if (unshare(CLONE_NEWNS))
		bench_die("unshare(CLONE_NEWNS)");
	xmount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

static void setup_base(const char *base, char *src, size_t srclen)
{
	xmount("msbench", base, "tmpfs", 0, "mode=755");
	snprintf(src, srclen, "%s/src", base);
	if (mkdir(src, 0755))
		bench_die("mkdir src");
}

static void make_dirs_and_binds(const char *base, unsigned n, const char *src)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/m", base);
	if (mkdir(path, 0755))
		bench_die("mkdir m");
	for (unsigned i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/m/%u", base, i);
		if (mkdir(path, 0755))
			bench_die("mkdir");
		xmount(src, path, NULL, MS_BIND, NULL);
	}
}

void bench_setup_plain(const char *base, unsigned n)
{
	char src[512], dir[600];

	private_ns();
	setup_base(base, src, sizeof(src));
	/*
	 * The source is a directory on a tmpfs of its own: a bind walks the
	 * child mounts of the mount it copies from (has_locked_children()),
	 * and binding out of <base> itself, which collects all N binds as
	 * children, would make building the setup O(N^2).
	 */
	xmount("msbench-src", src, "tmpfs", 0, "mode=755");
	snprintf(dir, sizeof(dir), "%s/dir", src);
	if (mkdir(dir, 0755))
		bench_die("mkdir src/dir");
	make_dirs_and_binds(base, n, dir);
}

void bench_setup_peers(const char *base, unsigned n)
{
	char src[512];
	int ns1;

	private_ns();
	setup_base(base, src, sizeof(src));
	xmount(src, src, NULL, MS_BIND, NULL);
	xmount(NULL, src, NULL, MS_SHARED, NULL);
	make_dirs_and_binds(base, n, src);
	/* keep namespace 1 (and so the peer group) alive until we exit */
	ns1 = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (ns1 < 0)
		bench_die("open /proc/self/ns/mnt");
	/* same user namespace: the copies join the group; then demote them */
	if (unshare(CLONE_NEWNS))
		bench_die("unshare(CLONE_NEWNS) #2");
	xmount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL);
}

void bench_setup_opts(const char *base, unsigned n)
{
	char path[512], src[64], data[96];

	private_ns();
	xmount("msbench", base, "tmpfs", 0, "mode=755");
	snprintf(path, sizeof(path), "%s/m", base);
	if (mkdir(path, 0755))
		bench_die("mkdir m");
	/*
	 * A tmpfs per mount, each with its own source name and size=, mode=,
	 * uid=, gid= values: no two records share an option string, so no
	 * renderer can reuse the previous mount's escaped options.
	 */
	for (unsigned i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/m/%u", base, i);
		if (mkdir(path, 0755))
			bench_die("mkdir");
		snprintf(src, sizeof(src), "msbench-opts-%u", i);
		snprintf(data, sizeof(data), "size=%uk,mode=%o,uid=%u,gid=%u,nr_inodes=%u",
			 64 + i, 0700 | (i & 077), 1000 + i, 2000 + i, 100 + i);
		xmount(src, path, "tmpfs", (i & 1) ? MS_NOSUID | MS_NODEV : MS_NOEXEC, data);
	}
}

void bench_toggle_mount(const char *path, int on)
{
	if (on)
		xmount("msbench-refresh", path, "tmpfs", 0, "size=64k");
	else if (umount2(path, 0))
		bench_die("umount");
}
