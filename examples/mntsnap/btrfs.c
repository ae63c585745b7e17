// SPDX-License-Identifier: MIT
/*
 * The btrfs default subvolume, asked as libmount 2.38 asks it
 * (btrfs_get_default_subvol_id()): one BTRFS_IOC_TREE_SEARCH of the
 * root tree for the dir item of the root tree directory, whose name is
 * "default" and whose location is the default subvolume's tree id.
 *
 * The kernel's btrfs headers are not needed (the static musl build has
 * none): the few constants and structures are below, each with the UAPI
 * header it comes from, and their sizes checked. The ioctl is the libc
 * wrapper, as the CLI makes its other calls on paths (statvfs, stat):
 * only the library's raw syscalls go through its test seam.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btrfs.h"

/* include/uapi/linux/btrfs.h */
#define K_BTRFS_IOCTL_MAGIC 0x94

struct k_btrfs_ioctl_search_key {
	uint64_t tree_id;
	uint64_t min_objectid;
	uint64_t max_objectid;
	uint64_t min_offset;
	uint64_t max_offset;
	uint64_t min_transid;
	uint64_t max_transid;
	uint32_t min_type;
	uint32_t max_type;
	uint32_t nr_items; /* in: at most; out: how many were found */
	uint32_t unused;
	uint64_t unused1, unused2, unused3, unused4;
};

/* each item found: this header (CPU order), then len bytes of the item */
struct k_btrfs_ioctl_search_header {
	uint64_t transid;
	uint64_t objectid;
	uint64_t offset;
	uint32_t type;
	uint32_t len;
};

struct k_btrfs_ioctl_search_args {
	struct k_btrfs_ioctl_search_key key;
	char buf[4096 - sizeof(struct k_btrfs_ioctl_search_key)];
};

#define K_BTRFS_IOC_TREE_SEARCH _IOWR(K_BTRFS_IOCTL_MAGIC, 17, struct k_btrfs_ioctl_search_args)

/* the filesystem: only max_id (the highest device id) is read here */
struct k_btrfs_ioctl_fs_info_args {
	uint64_t max_id;
	uint64_t num_devices;
	uint8_t rest[1008]; /* fsid, sizes, flags (in: 0), ... */
};

#define K_BTRFS_IOC_FS_INFO _IOR(K_BTRFS_IOCTL_MAGIC, 31, struct k_btrfs_ioctl_fs_info_args)

/* one device by its id (uuid all zero: any); path as the kernel opened it */
struct k_btrfs_ioctl_dev_info_args {
	uint64_t devid;
	uint8_t uuid[16];
	uint64_t bytes_used;
	uint64_t total_bytes;
	uint8_t fsid[16];
	uint64_t unused[377];
	char path[1024];
};

#define K_BTRFS_IOC_DEV_INFO _IOWR(K_BTRFS_IOCTL_MAGIC, 30, struct k_btrfs_ioctl_dev_info_args)

/* include/uapi/linux/btrfs_tree.h */
#define K_BTRFS_ROOT_TREE_OBJECTID 1ULL
#define K_BTRFS_ROOT_TREE_DIR_OBJECTID 6ULL
#define K_BTRFS_DIR_ITEM_KEY 84

/* on disk, little endian, packed: btrfs_disk_key and btrfs_dir_item */
struct k_btrfs_disk_key {
	uint64_t objectid;
	uint8_t type;
	uint64_t offset;
} __attribute__((__packed__));

struct k_btrfs_dir_item {
	struct k_btrfs_disk_key location;
	uint64_t transid;
	uint16_t data_len;
	uint16_t name_len;
	uint8_t type;
} __attribute__((__packed__)); /* then name_len bytes of name */

_Static_assert(sizeof(struct k_btrfs_ioctl_search_key) == 104, "btrfs_ioctl_search_key size");
_Static_assert(sizeof(struct k_btrfs_ioctl_search_header) == 32, "btrfs_ioctl_search_header size");
_Static_assert(sizeof(struct k_btrfs_ioctl_search_args) == 4096, "btrfs_ioctl_search_args size");
_Static_assert(sizeof(struct k_btrfs_dir_item) == 30, "btrfs_dir_item size");
_Static_assert(sizeof(struct k_btrfs_ioctl_fs_info_args) == 1024, "btrfs_ioctl_fs_info_args size");
_Static_assert(sizeof(struct k_btrfs_ioctl_dev_info_args) == 4096, "btrfs_ioctl_dev_info_args size");

/* The reply's one item: the root tree directory's "default" entry. */
static int default_from_reply(const struct k_btrfs_ioctl_search_args *a, uint64_t *id)
{
	struct k_btrfs_ioctl_search_header sh;
	struct k_btrfs_dir_item di;
	static const char name[] = "default";

	if (a->key.nr_items == 0)
		return -ENOENT;
	memcpy(&sh, a->buf, sizeof(sh));
	if (sh.type != K_BTRFS_DIR_ITEM_KEY || sh.len < sizeof(di) ||
	    sh.len > sizeof(a->buf) - sizeof(sh))
		return -ENOENT;
	memcpy(&di, a->buf + sizeof(sh), sizeof(di));
	/* the directory holds this one name; anything else is not ours */
	if (le16toh(di.name_len) != sizeof(name) - 1 || sh.len < sizeof(di) + sizeof(name) - 1 ||
	    memcmp(a->buf + sizeof(sh) + sizeof(di), name, sizeof(name) - 1))
		return -ENOENT;
	*id = le64toh(di.location.objectid);
	return 0;
}

int btrfs_default_subvol(const char *path, uint64_t *id)
{
	struct k_btrfs_ioctl_search_args *a;
	int fd, r;

	/* libmount opendir()s the mount point: symlinks followed, a directory */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* 4 KiB: off the stack, the CLI's callers may be deep already */
	a = calloc(1, sizeof(*a));
	if (!a) {
		close(fd);
		return -ENOMEM;
	}
	a->key.tree_id = K_BTRFS_ROOT_TREE_OBJECTID;
	a->key.min_objectid = a->key.max_objectid = K_BTRFS_ROOT_TREE_DIR_OBJECTID;
	a->key.min_type = a->key.max_type = K_BTRFS_DIR_ITEM_KEY;
	a->key.max_offset = UINT64_MAX;
	a->key.max_transid = UINT64_MAX;
	a->key.nr_items = 1;
	r = ioctl(fd, K_BTRFS_IOC_TREE_SEARCH, a) < 0 ? -errno : default_from_reply(a, id);
	free(a);
	close(fd);
	return r;
}

/* Whether the btrfs open as fd has device id devid on the block device rdev. */
static int dev_is(int fd, uint64_t devid, dev_t rdev)
{
	struct k_btrfs_ioctl_dev_info_args *a;
	struct stat st;
	int r;

	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->devid = devid;
	if (ioctl(fd, K_BTRFS_IOC_DEV_INFO, a) < 0) {
		/* a gap in the ids (a device removed): no such device */
		r = errno == ENODEV ? 0 : -errno;
	} else {
		a->path[sizeof(a->path) - 1] = '\0';
		r = !stat(a->path, &st) && S_ISBLK(st.st_mode) && st.st_rdev == rdev;
	}
	free(a);
	return r;
}

int btrfs_on_device(const char *path, const char *dev)
{
	struct k_btrfs_ioctl_fs_info_args fi = { 0 };
	struct stat st;
	int fd, r = 0;

	if (stat(dev, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, K_BTRFS_IOC_FS_INFO, &fi) < 0)
		r = -errno;
	/* device ids count from 1; max_id bounds them, gaps and all */
	for (uint64_t id = 1; !r && id <= fi.max_id; id++)
		r = dev_is(fd, id, st.st_rdev);
	close(fd);
	return r;
}

/*
 * mnt_fs_get_option() on one option string: the first option named
 * name (libmount's split: commas, a double-quoted part kept whole).
 * 1 and its value (NULL: no '='), 0 when none.
 */
static int opt_find(const char *s, const char *name, const char **val, size_t *valsz)
{
	size_t nlen = strlen(name);

	while (*s) {
		const char *start, *sep = NULL;
		bool quote = false;

		while (*s == ',')
			s++;
		if (!*s)
			break;
		for (start = s; *s && (quote || *s != ','); s++) {
			if (*s == '"')
				quote = !quote;
			else if (!quote && !sep && *s == '=' && s > start)
				sep = s;
		}
		/* an unclosed quote runs to the end: libmount finds no option then */
		if (quote)
			return 0;
		if ((size_t)((sep ? sep : s) - start) == nlen && !strncmp(start, name, nlen)) {
			*val = sep ? sep + 1 : NULL;
			*valsz = sep ? (size_t)(s - sep - 1) : 0;
			return 1;
		}
	}
	return 0;
}

/* x times base^power; false on overflow (libmount: -ERANGE) */
static bool scale(uint64_t *x, unsigned base, int power)
{
	while (power--) {
		if (UINT64_MAX / base < *x)
			return false;
		*x *= base;
	}
	return true;
}

/*
 * mnt_parse_offset() (util-linux's parse_size()): a number strtoumax()
 * reads in any base, then nothing or a size suffix: K M G T P E Z Y (or
 * k m g t p e z y), alone or with "iB" for powers of 1024, with "B" for
 * powers of 1000. A missing or empty value or a sign is no number. A
 * fraction ("0.5K", by the locale's decimal point) is none here: it
 * names no subvolume (README).
 */
static bool parse_subvolid(const char *val, size_t len, uint64_t *out)
{
	static const char suf[] = "KMGTPEZY", suf2[] = "kmgtpezy";
	char buf[64], *end;
	const char *p, *sp;
	unsigned long long v;
	unsigned base = 1024;

	if (!val || !len || len >= sizeof(buf))
		return false;
	memcpy(buf, val, len);
	buf[len] = '\0';
	for (p = buf; *p == ' ' || (*p >= '\t' && *p <= '\r'); p++)
		;
	if (*p == '-')
		return false;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (end == buf || (errno && (v == ULLONG_MAX || v == 0)))
		return false;
	*out = v;
	if (!*end)
		return true;
	if (end[1] == 'i' && (end[2] == 'B' || end[2] == 'b') && !end[3])
		base = 1024;
	else if ((end[1] == 'B' || end[1] == 'b') && !end[2])
		base = 1000;
	else if (end[1])
		return false;
	sp = strchr(suf, *end);
	if (sp)
		return scale(out, base, (int)(sp - suf) + 1);
	sp = strchr(suf2, *end);
	return sp && scale(out, base, (int)(sp - suf2) + 1);
}

bool btrfs_not_default(const char *fstype, const char *target, const char *const *opts,
		       size_t nopts)
{
	uint64_t def, id;
	const char *val = NULL;
	size_t valsz = 0, i;

	if (!fstype || strcmp(fstype, "btrfs") || !target)
		return false;
	if (btrfs_default_subvol(target, &def))
		return false;
	for (i = 0; i < nopts; i++)
		if (opts[i] && opt_find(opts[i], "subvolid", &val, &valsz))
			break;
	if (i == nopts)
		return false;
	return !parse_subvolid(val, valsz, &id) || id != def;
}
