// SPDX-License-Identifier: MIT
/*
 * One mount's filesystem UUID (contract in fsuuid.h).
 *
 * Why a list of filesystem types instead of asking every mount:
 * - FS_IOC_GETFSUUID answers from sb->s_uuid for any filesystem that calls
 *   super_set_uuid(). In-memory ones (tmpfs, sysfs, devtmpfs, cgroup2) do
 *   and hand out a random UUID per superblock; blkid, udev and so findmnt
 *   show none for them, so a reader comparing with findmnt, or a snapshot
 *   compared across boots, would see noise.
 * - Opening a directory calls into its filesystem: FUSE sends OPENDIR to a
 *   server the container may run (and never answer), NFS/CIFS may wait on
 *   the network, overlayfs opens the layers below (which may be FUSE).
 * The listed types keep their UUID in the on-disk superblock, read at mount
 * time, and open their root directory without I/O (the root dentry is
 * pinned by the mount). Checked on Linux 6.18: ext4 and xfs answer the
 * ioctl with the mkfs UUID; btrfs answers -ENOTTY (its fsid is not in the
 * VFS's UUID yet) so BTRFS_IOC_FS_INFO is asked; proc answers -ENOTTY.
 * f2fs, erofs, ubifs, bcachefs call super_set_uuid() with their on-disk
 * UUID in the kernel sources (erofs answered the ioctl here too); ext2 and
 * ext3 are usually served by the ext4 driver (were the old ext2 driver to
 * answer -ENOTTY, the udev step runs). FAT volume ids are 4 bytes, which
 * blkid prints as "ABCD-1234", not as hex: vfat is not listed, so it goes
 * through udev's link, which carries blkid's own text.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsuuid.h"
#include "proc.h"
#include "sys.h"
#include "uapi.h"

#define BYUUID_DIR "/dev/disk/by-uuid"
#define BYUUID_MAX_ENTRIES 4096
/* openat2 answers EAGAIN for a rename racing the walk, too: retry that */
#define OPEN_TRIES 3

static const char *const uuid_fs_types[] = {
	"ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "erofs", "ubifs", "bcachefs",
};

bool mntsnap__fs_uuid_type_listed(const char *fs_type)
{
	size_t i;

	if (!fs_type)
		return false;
	for (i = 0; i < sizeof(uuid_fs_types) / sizeof(uuid_fs_types[0]); i++)
		if (!strcmp(fs_type, uuid_fs_types[i]))
			return true;
	return false;
}

/* errors that say something about the caller or the system, not the mount */
static bool is_hard_error(long err)
{
	return err == -ENOMEM || err == -EMFILE || err == -ENFILE || err == -EBADF;
}

static long sys_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct mntsnap_open_how how = { .flags = flags, .resolve = resolve };

	return mntsnap__sys_openat2(dirfd, path, &how);
}

/*
 * No symlink is followed (a container can plant one anywhere in its own
 * tree, pointing out of it), and no component may leave the dcache: every
 * ancestor of a mount point is pinned there, so a walk that needs a lookup
 * or a revalidation (FUSE, NFS parents) is not the mount's path anyway,
 * and fails with EAGAIN instead of waiting on a server.
 */
static long open_under_root(int root_dirfd, const char *path, uint64_t flags)
{
	uint64_t resolve = MNTSNAP_RESOLVE_NO_SYMLINKS | MNTSNAP_RESOLVE_NO_MAGICLINKS |
			   MNTSNAP_RESOLVE_CACHED;
	long fd = -EAGAIN;
	int i;

	if (root_dirfd != AT_FDCWD)
		resolve |= MNTSNAP_RESOLVE_IN_ROOT;
	for (i = 0; i < OPEN_TRIES && fd == -EAGAIN; i++)
		fd = sys_openat2(root_dirfd, path, flags | O_CLOEXEC | O_NOFOLLOW, resolve);
	return fd;
}

/*
 * The fd's mount id must be mnt_id. AT_STATX_DONT_SYNC: a swapped-in
 * FUSE or network node answers from its cache instead of its server.
 */
static long check_mount(int fd, uint64_t mnt_id, struct mntsnap_statx *stx)
{
	long r = mntsnap__sys_statx(NULL, fd, "", AT_EMPTY_PATH | MNTSNAP_AT_STATX_DONT_SYNC,
				    MNTSNAP_STATX_TYPE | MNTSNAP_STATX_INO |
					    MNTSNAP_STATX_MNT_ID_UNIQUE,
				    stx);

	if (r < 0)
		return r;
	if (!(stx->stx_mask & (MNTSNAP_STATX_MNT_ID_UNIQUE | MNTSNAP_STATX_MNT_ID)))
		return -ENODATA;
	return stx->stx_mnt_id == mnt_id ? 0 : -ENODATA;
}

/*
 * A regular file (a file bind mount) has no "." to reopen through. Opened
 * by its path again, it could be whatever the target mounted there since
 * the check (a device node, whose open(2) alone acts, with the caller's
 * privileges): it is reopened through the checked O_PATH fd's magic link
 * in the caller's own procfs instead, which leads to that very file. No
 * verified procfs (inside the helper, /proc is the target's and path
 * lookups are refused): none, the other mounts and udev remain.
 */
static long reopen_file(int pfd, const struct mntsnap_statx *want)
{
	struct mntsnap_statx stx;
	char rel[40];
	long fd, r;
	int proc;

	proc = mntsnap__procfs_root();
	if (proc < 0)
		return proc == -EOPNOTSUPP ? -ENODATA : proc;
	snprintf(rel, sizeof(rel), "thread-self/fd/%d", pfd);
	fd = openat(proc, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	fd = fd < 0 ? -errno : fd;
	close(proc);
	if (fd < 0)
		return fd;
	r = check_mount((int)fd, want->stx_mnt_id, &stx);
	if (!r && (!S_ISREG(stx.stx_mode) || stx.stx_ino != want->stx_ino ||
		   stx.stx_dev_major != want->stx_dev_major ||
		   stx.stx_dev_minor != want->stx_dev_minor))
		r = -ENODATA;
	if (r < 0) {
		close((int)fd);
		return r;
	}
	return fd;
}

/*
 * An fd that ioctls reach, on the root of mount mnt_id: O_PATH first (no
 * open method runs, device nodes and FIFOs stay shut), check the mount and
 * the type, then reopen. "." from an O_PATH directory reopens that very
 * directory of that very mount (RESOLVE_NO_XDEV: never what was mounted on
 * top of it since).
 */
static long open_mount_root(int root_dirfd, const char *mount_point, uint64_t mnt_id)
{
	struct mntsnap_statx stx;
	long pfd, fd, r;

	pfd = open_under_root(root_dirfd, mount_point, O_PATH);
	if (pfd < 0)
		return pfd;
	r = check_mount((int)pfd, mnt_id, &stx);
	if (r < 0)
		fd = r;
	else if (S_ISDIR(stx.stx_mode))
		fd = sys_openat2((int)pfd, ".",
				 O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
				 MNTSNAP_RESOLVE_NO_XDEV | MNTSNAP_RESOLVE_BENEATH |
					 MNTSNAP_RESOLVE_NO_SYMLINKS | MNTSNAP_RESOLVE_NO_MAGICLINKS);
	else if (S_ISREG(stx.stx_mode))
		fd = reopen_file((int)pfd, &stx);
	else
		fd = -ENODATA;
	close((int)pfd);
	return fd;
}

static void format_uuid(const uint8_t *b, size_t len, char out[MNTSNAP_FS_UUID_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (len == 16 && (i == 4 || i == 6 || i == 8 || i == 10))
			out[o++] = '-';
		out[o++] = hex[b[i] >> 4];
		out[o++] = hex[b[i] & 0xf];
	}
	out[o] = '\0';
}

static bool all_zero(const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* 0 and out, or -ENODATA when this fd's filesystem has no usable UUID */
static long ioctl_uuid(int fd, const char *fs_type, char out[MNTSNAP_FS_UUID_SIZE])
{
	struct mntsnap_k_fsuuid2 u = { 0 };
	struct mntsnap_k_btrfs_fs_info_args bi;
	long r;

	r = mntsnap__sys_ioctl(NULL, fd, MNTSNAP_K_FS_IOC_GETFSUUID, &u);
	if (!r && u.len >= 1 && u.len <= sizeof(u.uuid) && !all_zero(u.uuid, u.len)) {
		format_uuid(u.uuid, u.len, out);
		return 0;
	}
	if (r == -ENOMEM)
		return r;
	if (strcmp(fs_type, "btrfs"))
		return -ENODATA;
	memset(&bi, 0, sizeof(bi));
	r = mntsnap__sys_ioctl(NULL, fd, MNTSNAP_K_BTRFS_IOC_FS_INFO, &bi);
	if (r < 0)
		return r == -ENOMEM ? r : -ENODATA;
	if (all_zero(bi.fsid, sizeof(bi.fsid)))
		return -ENODATA;
	format_uuid(bi.fsid, sizeof(bi.fsid), out);
	return 0;
}

static long uuid_from_mount(int root_dirfd, const char *mount_point, uint64_t mnt_id,
			    const char *fs_type, char out[MNTSNAP_FS_UUID_SIZE])
{
	long fd, r;

	fd = open_mount_root(root_dirfd, mount_point, mnt_id);
	if (fd < 0)
		return is_hard_error(fd) ? fd : -ENODATA;
	r = ioctl_uuid((int)fd, fs_type, out);
	close((int)fd);
	return r;
}

/* udev's \xNN escapes (anything but [0-9A-Za-z#+-.:=@_] and UTF-8) undone */
static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* false for a malformed escape or a result blkid would not print */
static bool decode_udev_name(const char *name, char out[MNTSNAP_FS_UUID_SIZE])
{
	size_t o = 0;
	int c;

	while (*name) {
		if (name[0] == '\\') {
			if (name[1] != 'x' || hexval(name[2]) < 0 || hexval(name[3]) < 0)
				return false;
			c = hexval(name[2]) << 4 | hexval(name[3]);
			name += 4;
		} else {
			c = (unsigned char)*name++;
		}
		if (c < 0x20 || c >= 0x7f || o >= MNTSNAP_FS_UUID_SIZE - 1)
			return false;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return o > 0;
}

/*
 * udev's links are "../../NODE" (NODE the kernel's device name, which may
 * hold a '/': "cciss/c0d0p1"): anything else is not udev's and not
 * followed. The stat then follows the link to /dev/NODE only.
 */
static bool link_matches(int dirfd, const char *name, dev_t want)
{
	char target[256];
	struct stat st;
	ssize_t n;

	n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (n <= 6 || (size_t)n >= sizeof(target) - 1)
		return false;
	target[n] = '\0';
	if (strncmp(target, "../../", 6) || strstr(target + 6, ".."))
		return false;
	if (fstatat(dirfd, name, &st, 0))
		return false;
	return S_ISBLK(st.st_mode) && st.st_rdev == want;
}

int mntsnap__fs_uuid_by_dev(int byuuid_dirfd, uint32_t dev_major, uint32_t dev_minor,
			    char out[MNTSNAP_FS_UUID_SIZE])
{
	char text[MNTSNAP_FS_UUID_SIZE];
	dev_t want = makedev(dev_major, dev_minor);
	struct dirent *de;
	int fd, n = 0, r = -ENODATA;
	DIR *d;

	if (!out || !dev_major)
		return !out ? -EINVAL : -ENODATA;
	/* own open file description: the caller's fd offset stays untouched */
	fd = openat(byuuid_dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return is_hard_error(-errno) ? -errno : -ENODATA;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while (n++ < BYUUID_MAX_ENTRIES && (de = readdir(d))) {
		if (de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
			continue;
		if (!decode_udev_name(de->d_name, text) ||
		    !link_matches(byuuid_dirfd, de->d_name, want))
			continue;
		memcpy(out, text, sizeof(text));
		r = 0;
		break;
	}
	closedir(d);
	return r;
}

/* step 2 in byuuid_dirfd, or in the caller's own /dev when it is USE_OWN_DEV */
#define USE_OWN_DEV (-2)
static int uuid_from_udev(int byuuid_dirfd, uint32_t dev_major, uint32_t dev_minor,
			  char out[MNTSNAP_FS_UUID_SIZE])
{
	int dfd, r;

	if (!dev_major || byuuid_dirfd == MNTSNAP_FS_UUID_NO_UDEV)
		return -ENODATA;
	if (byuuid_dirfd != USE_OWN_DEV)
		return mntsnap__fs_uuid_by_dev(byuuid_dirfd, dev_major, dev_minor, out);
	dfd = open(BYUUID_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return is_hard_error(-errno) ? -errno : -ENODATA;
	r = mntsnap__fs_uuid_by_dev(dfd, dev_major, dev_minor, out);
	close(dfd);
	return r;
}

static int fs_uuid(int root_dirfd, const char *mount_point, uint64_t mnt_id, uint32_t dev_major,
		   uint32_t dev_minor, const char *fs_type, int byuuid_dirfd,
		   char out[MNTSNAP_FS_UUID_SIZE])
{
	char text[MNTSNAP_FS_UUID_SIZE];
	long r = -ENODATA;

	if (!mount_point || mount_point[0] != '/' || !fs_type || !out)
		return -EINVAL;
	if (root_dirfd < 0 && root_dirfd != AT_FDCWD)
		return -EBADF;
	if (mntsnap__fs_uuid_type_listed(fs_type))
		r = uuid_from_mount(root_dirfd, mount_point, mnt_id, fs_type, text);
	if (r == -ENODATA)
		r = uuid_from_udev(byuuid_dirfd, dev_major, dev_minor, text);
	if (!r)
		memcpy(out, text, sizeof(text));
	return (int)r;
}

int mntsnap__fs_uuid(int root_dirfd, const char *mount_point, uint64_t mnt_id,
		     uint32_t dev_major, uint32_t dev_minor, const char *fs_type,
		     char out[MNTSNAP_FS_UUID_SIZE])
{
	return fs_uuid(root_dirfd, mount_point, mnt_id, dev_major, dev_minor, fs_type,
		       USE_OWN_DEV, out);
}

int mntsnap__fs_uuid_at(int root_dirfd, const char *mount_point, uint64_t mnt_id,
			uint32_t dev_major, uint32_t dev_minor, const char *fs_type,
			int byuuid_dirfd, char out[MNTSNAP_FS_UUID_SIZE])
{
	if (byuuid_dirfd < 0 && byuuid_dirfd != MNTSNAP_FS_UUID_NO_UDEV)
		return -EBADF;
	return fs_uuid(root_dirfd, mount_point, mnt_id, dev_major, dev_minor, fs_type,
		       byuuid_dirfd, out);
}
