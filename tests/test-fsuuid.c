// SPDX-License-Identifier: MIT
/*
 * mntsnap__fs_uuid(): filesystem images made here with a UUID chosen here
 * (mkfs.ext4 -U, mkfs.xfs -m uuid=, mkfs.btrfs -U, mkfs.erofs -U), loop
 * mounted in a private namespace; the oracles are that UUID, findmnt's
 * UUID column and `blkid -p` on the loop device. Loop devices are set up
 * with LO_FLAGS_AUTOCLEAR and handed to the mount, so the kernel detaches
 * them when the namespace (the test's process) goes, whatever the test did.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsuuid.h"
#include "helpers.h"
#include "sys.h"

#define BASE "/tmp/mntsnap-fsuuid"

#define UUID_A "0ddba11c-0ffe-4e57-9a11-5eedc0ffee01"
#define UUID_B "b0a710ad-dead-4bee-8f00-0123456789ab"

struct mnt_info {
	uint64_t id;
	uint32_t major, minor;
};

/* stdout of a shell command, trailing newline cut; asserts exit status 0 */
__attribute__((format(printf, 1, 2))) static char *run(const char *fmt, ...)
{
	char cmd[1024], *out = NULL;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "re");
	cr_assert(p, "popen %s", cmd);
	ms_read_fd(fileno(p), &out);
	st = pclose(p);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %d", cmd, st);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static struct mnt_info mnt_of(const char *path)
{
	struct mntsnap_statx stx = { 0 };
	struct mnt_info m;

	cr_assert_eq(mntsnap__sys_statx(NULL, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW,
					MNTSNAP_STATX_MNT_ID_UNIQUE, &stx), 0);
	cr_assert(stx.stx_mask & MNTSNAP_STATX_MNT_ID_UNIQUE, "no unique mount id");
	m.id = stx.stx_mnt_id;
	m.major = stx.stx_dev_major;
	m.minor = stx.stx_dev_minor;
	return m;
}

/* a free loop device bound to img, detached by the kernel after its last user */
static int loop_attach(const char *img, char *dev, size_t devsz)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int i, n, lfd, ffd;

	cr_assert(ctl >= 0, "/dev/loop-control: %s", strerror(errno));
	ffd = open(img, O_RDWR | O_CLOEXEC);
	cr_assert(ffd >= 0);
	for (i = 0; i < 20; i++) {
		struct loop_config cfg = { .fd = (unsigned)ffd };

		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		cr_assert(n >= 0, "LOOP_CTL_GET_FREE: %s", strerror(errno));
		snprintf(dev, devsz, "/dev/loop%d", n);
		lfd = open(dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0)
			continue;
		if (!ioctl(lfd, LOOP_CONFIGURE, &cfg))
			break;
		/* another process took it between GET_FREE and CONFIGURE */
		cr_assert_eq(errno, EBUSY, "LOOP_CONFIGURE: %s", strerror(errno));
		close(lfd);
		lfd = -1;
	}
	cr_assert(lfd >= 0, "no free loop device");
	close(ffd);
	close(ctl);
	return lfd;
}

/*
 * An image of fs with the given UUID, loop-mounted on dir; the loop device
 * path goes to dev. Skips when the kernel lacks fs (mount(2) loads a
 * module by itself where there is one: ENODEV means there is none).
 */
static void mount_image(const char *fs, const char *uuid, const char *dir, char *dev,
			size_t devsz)
{
	char img[256], *out;
	int lfd;

	ms_mkdir_p(dir);
	snprintf(img, sizeof(img), "%s.%s.img", dir, fs);
	if (!strcmp(fs, "ext4")) {
		out = run("truncate -s 16M %s && mkfs.ext4 -q -F -U %s %s", img, uuid, img);
	} else if (!strcmp(fs, "xfs")) {
		out = run("truncate -s 300M %s && mkfs.xfs -q -f -m uuid=%s %s", img, uuid, img);
	} else if (!strcmp(fs, "btrfs")) {
		out = run("truncate -s 128M %s && mkfs.btrfs -q -f -U %s %s >/dev/null", img,
			  uuid, img);
	} else {
		ms_mkdir_p(BASE "/erofs-src");
		out = run("echo x > %s/erofs-src/f && mkfs.erofs --quiet -U%s %s %s/erofs-src", BASE,
			  uuid, img, BASE);
	}
	free(out);
	lfd = loop_attach(img, dev, devsz);
	if (mount(dev, dir, fs, strcmp(fs, "erofs") ? 0 : MS_RDONLY, NULL)) {
		if (errno == ENODEV)
			cr_skip_test("kernel without %s", fs);
		cr_assert_fail("mount %s on %s: %s", fs, dir, strerror(errno));
	}
	close(lfd);
}

/* the three oracles agree with what the function says for this mount */
static void check_fs(const char *fs, const char *uuid)
{
	char dev[64], got[MNTSNAP_FS_UUID_SIZE] = "", *fm, *bl;
	const char *dir = BASE "/m";
	struct mnt_info m;

	ms_private_ns(BASE);
	mount_image(fs, uuid, dir, dev, sizeof(dev));
	m = mnt_of(dir);
	cr_assert_eq(mntsnap__fs_uuid(AT_FDCWD, dir, m.id, m.major, m.minor, fs, got), 0);
	fm = run("findmnt -no UUID --mountpoint %s", dir);
	bl = run("blkid -p -s UUID -o value %s", dev);
	cr_expect_str_eq(got, uuid, "%s: mkfs was given %s", fs, uuid);
	cr_expect_str_eq(got, fm, "%s: findmnt says %s", fs, fm);
	cr_expect_str_eq(got, bl, "%s: blkid -p says %s", fs, bl);
	free(fm);
	free(bl);
}

LTest(fsuuid, ext4)
{
	check_fs("ext4", UUID_A);
}

LTest(fsuuid, xfs)
{
	check_fs("xfs", UUID_B);
}

/* 6.18's btrfs leaves the VFS UUID unset: BTRFS_IOC_FS_INFO answers */
LTest(fsuuid, btrfs)
{
	char uuid[37];

	ms_random_uuid(uuid);
	check_fs("btrfs", uuid);
}

LTest(fsuuid, erofs)
{
	check_fs("erofs", UUID_B);
}

/*
 * tmpfs gets a random UUID from the kernel (the raw ioctl shows it) that
 * findmnt does not show; proc gets none. Both: -ENODATA, findmnt empty.
 */
LTest(fsuuid, in_memory_none)
{
	struct mntsnap_k_fsuuid2 u = { 0 };
	char got[MNTSNAP_FS_UUID_SIZE] = "";
	const char *dirs[] = { BASE, "/proc" }, *types[] = { "tmpfs", "proc" };
	struct mnt_info m;
	char *fm;
	int fd, i;

	ms_private_ns(BASE);
	fd = open(BASE, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(fd >= 0);
	if (!mntsnap__sys_ioctl(NULL, fd, MNTSNAP_K_FS_IOC_GETFSUUID, &u))
		cr_log_info("tmpfs: the kernel reports a %u-byte UUID, not shown", u.len);
	close(fd);
	for (i = 0; i < 2; i++) {
		m = mnt_of(dirs[i]);
		cr_expect_eq(mntsnap__fs_uuid(AT_FDCWD, dirs[i], m.id, m.major, m.minor,
					      types[i], got),
			     -ENODATA, "%s", dirs[i]);
		fm = run("findmnt -no UUID --mountpoint %s", dirs[i]);
		cr_expect_str_empty(fm, "findmnt shows %s for %s", fm, dirs[i]);
		free(fm);
	}
	cr_expect_str_empty(got, "out written on failure");
}

/*
 * ext4 (UUID_A) over-mounted by another ext4 (UUID_B): asking for the
 * lower mount must never answer the upper one's UUID. Without a device
 * number only the path step runs: -ENODATA exactly.
 */
LTest(fsuuid, overmounted)
{
	char dev[64], dev2[64], got[MNTSNAP_FS_UUID_SIZE] = "";
	const char *dir = BASE "/m";
	struct mnt_info low, top;
	int r;

	ms_private_ns(BASE);
	mount_image("ext4", UUID_A, dir, dev, sizeof(dev));
	low = mnt_of(dir);
	mount_image("ext4", UUID_B, BASE "/m2", dev2, sizeof(dev2));
	cr_assert_eq(mount(BASE "/m2", dir, NULL, MS_BIND, NULL), 0);
	top = mnt_of(dir);
	cr_assert_neq(low.id, top.id);
	cr_expect_eq(mntsnap__fs_uuid(AT_FDCWD, dir, low.id, 0, 0, "ext4", got), -ENODATA);
	/* with the device: only udev's link for it may answer, never UUID_B */
	r = mntsnap__fs_uuid(AT_FDCWD, dir, low.id, low.major, low.minor, "ext4", got);
	cr_expect(r == -ENODATA || (r == 0 && !strcmp(got, UUID_A)), "r=%d got %s", r, got);
	/* the top one, asked for, is there */
	cr_expect_eq(mntsnap__fs_uuid(AT_FDCWD, dir, top.id, 0, 0, "ext4", got), 0);
	cr_expect_str_eq(got, UUID_B);
}

/*
 * A symlink on the way is not followed, even when it leads to the right
 * mount (a container plants links out of its tree): -ENODATA. Under a
 * root fd, an absolute mount point resolves inside that root.
 */
LTest(fsuuid, symlink_not_followed)
{
	char dev[64], got[MNTSNAP_FS_UUID_SIZE] = "";
	struct mnt_info m;
	int root;

	ms_private_ns(BASE);
	mount_image("ext4", UUID_A, BASE "/real/m", dev, sizeof(dev));
	m = mnt_of(BASE "/real/m");
	cr_assert_eq(symlink("real", BASE "/link"), 0);
	cr_expect_eq(mntsnap__fs_uuid(AT_FDCWD, BASE "/link/m", m.id, 0, 0, "ext4", got),
		     -ENODATA);
	cr_expect_str_empty(got);

	root = open(BASE, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert(root >= 0);
	cr_expect_eq(mntsnap__fs_uuid(root, "/real/m", m.id, 0, 0, "ext4", got), 0);
	cr_expect_str_eq(got, UUID_A);
	cr_expect_eq(mntsnap__fs_uuid(root, "/link/m", m.id, 0, 0, "ext4", got), -ENODATA);
	/* ".." cannot climb out of the root fd either */
	cr_expect_eq(mntsnap__fs_uuid(root, "/../../real/m", m.id, 0, 0, "ext4", got),
		     0);
	close(root);
}

/* a file bind mount: the file's filesystem, as findmnt reports it */
LTest(fsuuid, file_mount)
{
	char dev[64], got[MNTSNAP_FS_UUID_SIZE] = "", *fm;
	struct mnt_info m;
	int fd;

	ms_private_ns(BASE);
	mount_image("ext4", UUID_A, BASE "/m", dev, sizeof(dev));
	fd = open(BASE "/m/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	cr_assert(fd >= 0);
	close(fd);
	fd = open(BASE "/target", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(mount(BASE "/m/f", BASE "/target", NULL, MS_BIND, NULL), 0);
	m = mnt_of(BASE "/target");
	cr_expect_eq(mntsnap__fs_uuid(AT_FDCWD, BASE "/target", m.id, 0, 0, "ext4", got), 0);
	cr_expect_str_eq(got, UUID_A);
	fm = run("findmnt -no UUID --mountpoint %s", BASE "/target");
	cr_expect_str_eq(got, fm);
	free(fm);
}

/* answer the kernel's FUSE_INIT, so that later requests reach the server */
static void fuse_answer_init(int fd)
{
	char buf[FUSE_MIN_READ_BUFFER];
	const struct fuse_in_header *in = (const void *)buf;
	struct {
		struct fuse_out_header h;
		struct fuse_init_out o;
	} r = { 0 };
	ssize_t n = read(fd, buf, sizeof(buf));

	cr_assert(n >= (ssize_t)sizeof(*in) && in->opcode == FUSE_INIT, "no FUSE_INIT: %zd", n);
	r.h.len = sizeof(r);
	r.h.unique = in->unique;
	r.o.major = FUSE_KERNEL_VERSION;
	r.o.minor = FUSE_KERNEL_MINOR_VERSION;
	r.o.max_write = 4096;
	cr_assert_eq(write(fd, &r, sizeof(r)), (ssize_t)sizeof(r), "INIT reply: %s",
		     strerror(errno));
}

/*
 * A FUSE mount served by this test, which never answers a request:
 * opening its root would wait for an OPENDIR reply. Whatever the type is
 * called, it is never opened: the call (in a child) returns -ENODATA, and
 * no request reaches the server first. No timing: whichever of "child
 * exited" and "request arrived" comes first decides.
 */
LTest(fsuuid, fuse_never_opened)
{
	const char *types[] = { "fuse.mstest", "mstestfs" }, *dir = BASE "/fuse";
	char opts[128], got[MNTSNAP_FS_UUID_SIZE] = "";
	struct pollfd pfd[2];
	struct mnt_info m;
	int fd, i, st;
	pid_t pid;

	ms_private_ns(BASE);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		cr_skip_test("/dev/fuse: %s", strerror(errno));
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	ms_mkdir_p(dir);
	cr_assert_eq(mount("mstest", dir, "fuse.mstest", MS_NOSUID | MS_NODEV, opts), 0,
		     "fuse mount: %s", strerror(errno));
	m = mnt_of(dir);
	fuse_answer_init(fd);
	for (i = 0; i < 2; i++) {
		pid = fork();
		cr_assert(pid >= 0);
		if (!pid)
			_exit(mntsnap__fs_uuid(AT_FDCWD, dir, m.id, m.major, m.minor, types[i],
					       got) == -ENODATA ? 0 : 1);
		pfd[0] = (struct pollfd){ .fd = (int)syscall(SYS_pidfd_open, pid, 0),
					  .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = fd, .events = POLLIN };
		cr_assert(pfd[0].fd >= 0);
		cr_assert_gt(poll(pfd, 2, -1), 0);
		if (pfd[1].revents & POLLIN)
			kill(pid, SIGKILL);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		close(pfd[0].fd);
		cr_expect_not(pfd[1].revents & POLLIN, "%s: a request reached the server", types[i]);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: not -ENODATA", types[i]);
	}
	close(fd);
}

/* a directory's attributes as a FUSE server gives them */
static void fuse_dir_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = S_IFDIR | 0755;
	a->nlink = 2;
}

/*
 * A FUSE server with one directory "sub" under its root, whose name and
 * attributes are never cached (valid for 0 s): every walk through it asks
 * again. Runs until killed.
 */
static __attribute__((noreturn)) void fuse_serve_sub(int fd)
{
	char buf[FUSE_MIN_READ_BUFFER];
	const struct fuse_in_header *in = (const void *)buf;
	struct {
		struct fuse_out_header h;
		union {
			struct fuse_entry_out e;
			struct fuse_attr_out a;
		};
	} r;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		if (poll(&pfd, 1, -1) < 0 || read(fd, buf, sizeof(buf)) < (ssize_t)sizeof(*in))
			continue;
		if (in->opcode == FUSE_FORGET || in->opcode == FUSE_BATCH_FORGET)
			continue;
		memset(&r, 0, sizeof(r));
		r.h.unique = in->unique;
		r.h.len = sizeof(r.h);
		if (in->opcode == FUSE_LOOKUP && in->nodeid == FUSE_ROOT_ID &&
		    !strcmp(buf + sizeof(*in), "sub")) {
			r.e.nodeid = 2;
			fuse_dir_attr(&r.e.attr, 2);
			r.h.len += sizeof(r.e);
		} else if (in->opcode == FUSE_GETATTR) {
			fuse_dir_attr(&r.a.attr, in->nodeid);
			r.h.len += sizeof(r.a);
		} else {
			r.h.error = in->opcode == FUSE_LOOKUP ? -ENOENT : -ENOSYS;
		}
		if (write(fd, &r, r.h.len) < 0)
			_exit(1);
	}
}

/*
 * A mount below a FUSE directory whose server has stopped answering: the
 * walk to it would have to ask the server again ("sub" is never cached),
 * so it is refused from the dcache instead: -ENODATA, and no request
 * reaches the server (which would otherwise wait forever). The mount is a
 * tmpfs named "ext4" here, so that step 1 runs: a walk that got through
 * would answer tmpfs's kernel UUID.
 */
LTest(fsuuid, fuse_parent_not_asked)
{
	const char *dir = BASE "/fuse/sub";
	char opts[128], got[MNTSNAP_FS_UUID_SIZE] = "";
	struct pollfd pfd[2];
	struct mnt_info m;
	pid_t server, pid;
	int fd, st;

	ms_private_ns(BASE);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		cr_skip_test("/dev/fuse: %s", strerror(errno));
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	ms_mkdir_p(BASE "/fuse");
	cr_assert_eq(mount("mstest", BASE "/fuse", "fuse.mstest", MS_NOSUID | MS_NODEV, opts),
		     0, "fuse mount: %s", strerror(errno));
	fuse_answer_init(fd);
	server = fork();
	cr_assert(server >= 0);
	if (!server)
		fuse_serve_sub(fd);
	cr_assert_eq(mount("t", dir, "tmpfs", 0, NULL), 0, "tmpfs on %s: %s", dir,
		     strerror(errno));
	m = mnt_of(dir);
	kill(server, SIGKILL);
	cr_assert_eq(waitpid(server, &st, 0), server);

	pid = fork();
	cr_assert(pid >= 0);
	if (!pid)
		_exit(mntsnap__fs_uuid_at(AT_FDCWD, dir, m.id, 0, 0, "ext4",
					  MNTSNAP_FS_UUID_NO_UDEV, got) == -ENODATA ? 0 : 1);
	pfd[0] = (struct pollfd){ .fd = (int)syscall(SYS_pidfd_open, pid, 0), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = fd, .events = POLLIN };
	cr_assert(pfd[0].fd >= 0);
	cr_assert_gt(poll(pfd, 2, -1), 0);
	if (pfd[1].revents & POLLIN)
		kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	close(pfd[0].fd);
	cr_expect_not(pfd[1].revents & POLLIN, "a request reached the FUSE server");
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "not -ENODATA");
	close(fd);
}

/*
 * udev's by-uuid scan, in a directory laid out as udev does (links
 * "../../NODE") that this test fills: the node is a real block node of the
 * real loop device, the link name blkid's UUID in udev's encoding. Links
 * to other nodes, to non-block nodes or not in udev's form are passed by.
 */
LTest(fsuuid, udev_scan)
{
	char dev[64], got[MNTSNAP_FS_UUID_SIZE] = "", name[128], *bl;
	const char *dir = BASE "/disk/by-uuid";
	struct stat st;
	int dfd;

	ms_private_ns(BASE);
	mount_image("ext4", UUID_A, BASE "/m", dev, sizeof(dev));
	cr_assert_eq(stat(dev, &st), 0);
	cr_assert(S_ISBLK(st.st_mode));
	ms_mkdir_p(dir);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(dfd >= 0);

	/* decoys first: wrong kinds of links to the right device */
	cr_assert_eq(mknod(BASE "/loopx", S_IFBLK | 0600, st.st_rdev), 0);
	cr_assert_eq(mknod(BASE "/chr", S_IFCHR | 0600, st.st_rdev), 0);
	cr_assert_eq(symlinkat(BASE "/loopx", dfd, "absolute-target"), 0);
	cr_assert_eq(symlinkat("../../chr", dfd, "char-node"), 0);
	cr_assert_eq(symlinkat("../../../mntsnap-fsuuid/loopx", dfd, "dotdot"), 0);
	cr_expect_eq(mntsnap__fs_uuid_by_dev(dfd, major(st.st_rdev), minor(st.st_rdev), got),
		     -ENODATA);
	cr_expect_str_empty(got);

	/* blkid's value, '-' written as udev's \x2d (decoding must undo it) */
	bl = run("blkid -p -s UUID -o value %s", dev);
	cr_assert_str_eq(bl, UUID_A);
	snprintf(name, sizeof(name), "%.8s\\x2d%s", bl, bl + 9);
	cr_assert_eq(symlinkat("../../loopx", dfd, name), 0);
	cr_expect_eq(mntsnap__fs_uuid_by_dev(dfd, major(st.st_rdev), minor(st.st_rdev), got),
		     0);
	cr_expect_str_eq(got, bl);
	/* another device number: no match */
	cr_expect_eq(mntsnap__fs_uuid_by_dev(dfd, major(st.st_rdev), minor(st.st_rdev) + 1000,
					     got),
		     -ENODATA);
	free(bl);
	close(dfd);
}

/*
 * udev's layout under BASE for the device of dev: BASE/NODE a real block
 * node of it, BASE/disk/by-uuid/NAME -> ../../NODE. Returns the dir's fd.
 */
static int byuuid_dir(const char *dev, const char *node, const char *name)
{
	char path[256];
	struct stat st;
	int dfd;

	cr_assert_eq(stat(dev, &st), 0);
	snprintf(path, sizeof(path), BASE "/%s", node);
	cr_assert_eq(mknod(path, S_IFBLK | 0600, st.st_rdev), 0, "%s", strerror(errno));
	ms_mkdir_p(BASE "/disk/by-uuid");
	dfd = open(BASE "/disk/by-uuid", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert(dfd >= 0);
	snprintf(path, sizeof(path), "../../%s", node);
	cr_assert_eq(symlinkat(path, dfd, name), 0);
	return dfd;
}

/*
 * The two steps wired together: step 1 answers when it can (a by-uuid
 * link with another name is not consulted); an over-mounted mount point
 * or an unlisted type name falls to step 2, which finds the device's
 * link; MNTSNAP_FS_UUID_NO_UDEV leaves it out.
 */
LTest(fsuuid, steps)
{
	char dev[64], got[MNTSNAP_FS_UUID_SIZE] = "";
	const char *dir = BASE "/m";
	struct mnt_info m;
	int dfd, dfd2;

	ms_private_ns(BASE);
	mount_image("ext4", UUID_A, dir, dev, sizeof(dev));
	m = mnt_of(dir);
	dfd = byuuid_dir(dev, "loopx", "0ddba11c-decoy");
	cr_expect_eq(mntsnap__fs_uuid_at(AT_FDCWD, dir, m.id, m.major, m.minor, "ext4", dfd, got),
		     0);
	cr_expect_str_eq(got, UUID_A);
	cr_expect_eq(mntsnap__fs_uuid_at(AT_FDCWD, dir, m.id, m.major, m.minor, "fuseblk", dfd,
					 got),
		     0);
	cr_expect_str_eq(got, "0ddba11c-decoy", "step 2 for an unlisted type");

	cr_assert_eq(symlinkat("../../loopx", dfd, UUID_A), 0);
	cr_assert_eq(unlinkat(dfd, "0ddba11c-decoy", 0), 0);
	cr_assert_eq(mount("over", dir, "tmpfs", 0, NULL), 0);
	memset(got, 0, sizeof(got));
	cr_expect_eq(mntsnap__fs_uuid_at(AT_FDCWD, dir, m.id, m.major, m.minor, "ext4",
					 MNTSNAP_FS_UUID_NO_UDEV, got),
		     -ENODATA);
	cr_expect_eq(mntsnap__fs_uuid_at(AT_FDCWD, dir, m.id, m.major, m.minor, "ext4", dfd, got),
		     0);
	cr_expect_str_eq(got, UUID_A, "over-mounted: step 2");
	cr_expect_eq(mntsnap__fs_uuid_at(AT_FDCWD, dir, m.id, 0, 0, "ext4", dfd, got), -ENODATA,
		     "no device, no step 2");
	dfd2 = dup(dfd);
	close(dfd2);
	cr_expect_eq(mntsnap__fs_uuid_at(AT_FDCWD, dir, m.id, m.major, m.minor, "ext4", dfd2,
					 got),
		     -EBADF);
	cr_expect_eq(mntsnap__fs_uuid_at(AT_FDCWD, dir, m.id, m.major, m.minor, "ext4", -5, got),
		     -EBADF);
	close(dfd);
}

LTest(fsuuid, arguments)
{
	char got[MNTSNAP_FS_UUID_SIZE] = "";

	cr_expect_eq(mntsnap__fs_uuid(AT_FDCWD, "relative", 1, 0, 0, "ext4", got), -EINVAL);
	cr_expect_eq(mntsnap__fs_uuid(AT_FDCWD, NULL, 1, 0, 0, "ext4", got), -EINVAL);
	cr_expect_eq(mntsnap__fs_uuid(AT_FDCWD, "/", 1, 0, 0, NULL, got), -EINVAL);
	cr_expect_eq(mntsnap__fs_uuid(-7, "/", 1, 0, 0, "ext4", got), -EBADF);
	cr_expect_eq(mntsnap__fs_uuid(1000, "/", 1, 0, 0, "ext4", got), -EBADF);
	cr_expect_str_empty(got);
	cr_expect(mntsnap__fs_uuid_type_listed("ext4"));
	cr_expect_not(mntsnap__fs_uuid_type_listed("tmpfs"));
	cr_expect_not(mntsnap__fs_uuid_type_listed("fuse.sshfs"));
	cr_expect_not(mntsnap__fs_uuid_type_listed("overlay"));
}
