// SPDX-License-Identifier: MIT
/*
 * "/dev/root" as findmnt shows it. The kernel names the root filesystem
 * of a system booted without an initramfs "/dev/root" in mountinfo (and
 * statmount's source): a name that exists nowhere. libmount 2.38 replaces
 * it while parsing mountinfo-format text (kernel_fs_postparse() ->
 * mnt_guess_system_root()), so findmnt's SOURCE, -S and -x see the real
 * device. The library keeps the kernel's text (a snapshot is what the
 * kernel said, and --format mountinfo must give the text back); this is
 * the findmnt layer's translation, applied to what the views show.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "devroot.h"
#include "pathcache.h"

/*
 * sysfs_devno_to_devpath(): /sys/dev/block/MAJ:MIN's link names the
 * device ('!' for '/'), and /dev/NAME must be that block device.
 */
static char *devno_path(unsigned maj, unsigned min)
{
	char sys[64], link[PATH_MAX], dev[PATH_MAX];
	const char *name;
	struct stat st;
	ssize_t n;

	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(sys, link, sizeof(link) - 1);
	if (n < 0)
		return NULL;
	link[n] = '\0';
	name = strrchr(link, '/');
	if (!name)
		return NULL;
	if (snprintf(dev, sizeof(dev), "/dev/%s", name + 1) >= (int)sizeof(dev))
		return NULL;
	for (char *p = dev; *p; p++)
		if (*p == '!')
			*p = '/';
	if (stat(dev, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != makedev(maj, min))
		return NULL;
	return strdup(dev);
}

/*
 * mnt_get_kernel_cmdline_option("root="), its walk kept: the last root=
 * before " -- " (kernel arguments end there) that follows a blank or
 * starts the line. Each value's end is cut in place, so a root= right
 * after another's single blank no longer follows one and is skipped,
 * as libmount skips it.
 */
static char *cmdline_root(void)
{
	char buf[BUFSIZ], *p, *res = NULL;
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	/* fgets(): the first line only */
	p = strchr(buf, '\n');
	if (p)
		p[1] = '\0';
	if (!buf[0] || buf[0] == '\n')
		return NULL;
	p = strstr(buf, " -- ");
	if (p)
		*p = '\0';
	else
		buf[strlen(buf) - 1] = '\0';
	for (p = buf; p && *p; p++) {
		char *v;
		bool end;

		p = strstr(p, "root=");
		if (!p)
			break;
		if (p != buf && !isblank((unsigned char)p[-1]))
			continue;
		v = p + 5;
		while (*p && !isblank((unsigned char)*p))
			p++;
		end = !*p;
		*p = '\0';
		free(res);
		res = strdup(v);
		if (end || !res)
			break;
	}
	return res;
}

static bool all_xdigits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return false;
	return true;
}

/*
 * mnt_guess_system_root() past the record's own device: root= as
 * MAJ:MIN, as the kernel's hex device number, else as libmount's
 * mnt_resolve_spec() without a cache (findmnt gives its table one only
 * after parsing): a tag's device (libblkid; none in a build without it),
 * a path resolved, or the text itself when it resolves to nothing.
 */
static char *cmdline_guess(void)
{
	char *spec = cmdline_root(), *dev = NULL;
	struct pathcache pc;
	unsigned x, y;

	if (!spec)
		return NULL;
	if (sscanf(spec, "%u:%u", &x, &y) == 2) {
		dev = devno_path(x, y);
	} else if (all_xdigits(spec)) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(spec, &end, 16);
		/* the kernel's new_decode_dev() */
		if (!errno && !*end && n <= UINT32_MAX)
			dev = devno_path((n & 0xfff00) >> 8, (n & 0xff) | ((n >> 12) & 0xfff00));
	} else {
		pathcache_init(&pc, false);
		pc.off = true;
		dev = pathcache_spec(&pc, spec);
		pathcache_free(&pc);
	}
	free(spec);
	return dev;
}

/* Only parsed mountinfo lines and statmount records carry MAJ:MIN; mounts text is not post-parsed. */
static bool is_dev_root(const struct mntsnap_mount *m)
{
	return (m->mask & MNTSNAP_F_SOURCE) && (m->mask & MNTSNAP_F_DEV) &&
	       !strcmp(m->source, "/dev/root");
}

char *devroot_name(const struct mntsnap_mount *m)
{
	char *dev = NULL;

	if (!is_dev_root(m))
		return NULL;
	/* major 0 (pseudo, network, btrfs): the number says nothing */
	if (m->dev_major)
		dev = devno_path(m->dev_major, m->dev_minor);
	return dev ? dev : cmdline_guess();
}

int devroot_names(const struct mntsnap_snapshot *snap, char ***ret)
{
	size_t n = mntsnap_snapshot_count(snap);
	char **names = NULL;
	struct mntsnap_mount m;

	*ret = NULL;
	for (size_t i = 0; i < n; i++) {
		mntsnap_snapshot_get(snap, i, &m);
		if (!is_dev_root(&m))
			continue;
		if (!names && !(names = calloc(n, sizeof(*names))))
			return -ENOMEM;
		names[i] = devroot_name(&m);
	}
	*ret = names;
	return 0;
}

void devroot_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}
