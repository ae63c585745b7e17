// SPDX-License-Identifier: MIT
/*
 * The filesystem UUID (MNTSNAP_F_UUID) end to end, on loop-mounted ext4,
 * xfs and btrfs images made with a known UUID inside the test's private
 * mount namespace. Oracles: the UUID given to mkfs, findmnt's UUID column
 * and blkid on the same mount; captured through the caller's namespace,
 * another namespace directly and through the entering helper; saved,
 * loaded, diffed; the CLI's -J -o TARGET,UUID against findmnt's.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"

#define BASE "/tmp/mntsnap-uuid"
#define UUID1 "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
#define UUID2 "a0b1c2d3-e4f5-4617-8899-aabbccddeeff"

static bool have(const char *tool)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "failed: %s", cmd);
}

/* First line of a command's output, without its newline (malloc'd). */
static char *output(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *output(const char *fmt, ...)
{
	char cmd[1024], *out = NULL;
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "re");
	cr_assert_not_null(p);
	ms_read_fd(fileno(p), &out);
	cr_assert_eq(pclose(p), 0, "failed: %s", cmd);
	return out;
}

static char *first_line(char *s)
{
	s[strcspn(s, "\n")] = '\0';
	return s;
}

/* An image of fs with uuid, loop-mounted on BASE/name (mount(8) sets up the loop). */
static void mount_image(const char *fs, const char *name, const char *uuid)
{
	if (!strcmp(fs, "ext4"))
		run("truncate -s 32M %s/%s.img && mkfs.ext4 -q -F -U %s %s/%s.img", BASE, name, uuid,
		    BASE, name);
	else if (!strcmp(fs, "xfs"))
		run("truncate -s 300M %s/%s.img && mkfs.xfs -q -f -m uuid=%s %s/%s.img", BASE, name,
		    uuid, BASE, name);
	else
		run("truncate -s 200M %s/%s.img && mkfs.btrfs -q -f -U %s %s/%s.img >/dev/null", BASE,
		    name, uuid, BASE, name);
	run("mkdir -p %s/%s && mount -o loop %s/%s.img %s/%s", BASE, name, BASE, name, BASE, name);
}

static void setup(void)
{
	ms_require_root();
	if (!have("mkfs.ext4") || !have("findmnt") || !have("blkid"))
		cr_skip_test("needs e2fsprogs and util-linux");
	ms_private_ns(BASE);
}

/* The record mounted at path, copied out of s; false if none. */
static bool find_mount(const struct mntsnap_snapshot *s, const char *path,
		       struct mntsnap_mount *ret)
{
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++)
		if (!mntsnap_snapshot_get(s, i, ret) && (ret->mask & MNTSNAP_F_MOUNT_POINT) &&
		    !strcmp(ret->mount_point, path))
			return true;
	return false;
}

static struct mntsnap_snapshot *capture(const struct mntsnap_ns *ns, uint32_t flags,
					uint32_t mask, int backend)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .mask = mask, .ns = ns, .flags = flags,
		     .backend = backend);
	struct mntsnap_snapshot *s = NULL;
	int r = mntsnap_capture(&o, &s);

	cr_assert_eq(r, 0, "capture: %s", strerror(-r));
	return s;
}

static void assert_uuid(const struct mntsnap_snapshot *s, const char *path, const char *want)
{
	struct mntsnap_mount m;

	cr_assert(find_mount(s, path, &m), "%s not captured", path);
	cr_assert(m.mask & MNTSNAP_F_UUID, "%s: no UUID", path);
	cr_assert_str_eq(m.uuid, want, "%s", path);
}

Test(uuid, ext4_xfs_btrfs_as_findmnt_and_blkid)
{
	const char *fs[] = { "ext4", "xfs", "btrfs" };
	const char *tool[] = { "mkfs.ext4", "mkfs.xfs", "mkfs.btrfs" };
	char btrfs_uuid[37];
	const char *uuid[] = { UUID1, "11111111-2222-4333-8444-555555555555", btrfs_uuid };
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	int n = 0;

	ms_random_uuid(btrfs_uuid);
	setup();
	for (int i = 0; i < 3; i++)
		if (have(tool[i]))
			mount_image(fs[i], fs[i], uuid[i]), n++;
	s = capture(NULL, 0, MNTSNAP_MASK_DEFAULT | MNTSNAP_F_UUID, MNTSNAP_BACKEND_STATMOUNT);
	for (int i = 0; i < 3; i++) {
		char path[256], *fm, *bl;

		if (!have(tool[i]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", BASE, fs[i]);
		fm = first_line(output("findmnt -no UUID %s", path));
		bl = first_line(output("blkid -p -s UUID -o value $(findmnt -nvo SOURCE %s)", path));
		cr_assert_str_eq(fm, uuid[i], "findmnt disagrees with mkfs on %s", fs[i]);
		cr_assert_str_eq(bl, uuid[i], "blkid disagrees with mkfs on %s", fs[i]);
		assert_uuid(s, path, fm);
		free(fm);
		free(bl);
	}
	cr_assert_eq(n >= 1, true);
	/*
	 * A tmpfs has none (findmnt shows none either), and that is known
	 * for sure (no UUID-bearing type, no device): the empty value,
	 * present, so a diff compares it with another mount's UUID.
	 */
	cr_assert(find_mount(s, BASE, &m));
	cr_assert(m.mask & MNTSNAP_F_UUID, "none for sure is the empty value");
	cr_assert_str_eq(m.uuid, "");
	mntsnap_snapshot_free(s);
}

Test(uuid, only_when_asked_and_never_from_text)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;

	setup();
	mount_image("ext4", "e", UUID1);
	s = capture(NULL, 0, 0, MNTSNAP_BACKEND_STATMOUNT);
	cr_assert(find_mount(s, BASE "/e", &m));
	cr_assert_not(m.mask & MNTSNAP_F_UUID, "read without being asked");
	mntsnap_snapshot_free(s);
	/* mountinfo text has no unique ids to check the path against */
	s = capture(NULL, 0, MNTSNAP_MASK_DEFAULT | MNTSNAP_F_UUID, MNTSNAP_BACKEND_MOUNTINFO);
	cr_assert(find_mount(s, BASE "/e", &m));
	cr_assert_not(m.mask & MNTSNAP_F_UUID);
	mntsnap_snapshot_free(s);
	/* a single lookup */
	cr_assert_eq(mntsnap_stat_path(BASE "/e", MNTSNAP_MASK_FULL, &s), 0);
	assert_uuid(s, BASE "/e", UUID1);
	mntsnap_snapshot_free(s);
}

Test(uuid, saved_loaded_and_diffed)
{
	MNTSNAP_OPTS(mntsnap_diff_opts, dopts, .flags = MNTSNAP_DIFF_IGNORE_IDS);
	struct mntsnap_snapshot *a, *b, *l = NULL;
	struct mntsnap_diff_entry e = { 0 };
	struct mntsnap_diff *d = NULL;
	char *json = NULL, *fields, needle[128];
	size_t len;
	FILE *f;

	setup();
	mount_image("ext4", "e", UUID1);
	a = capture(NULL, 0, MNTSNAP_MASK_FULL, MNTSNAP_BACKEND_STATMOUNT);
	assert_uuid(a, BASE "/e", UUID1);
	cr_assert_eq(mntsnap_snapshot_save(a, BASE "/a.snap"), 0);
	cr_assert_eq(mntsnap_snapshot_load(BASE "/a.snap", NULL, &l), 0);
	assert_uuid(l, BASE "/e", UUID1);
	/* the JSON export has findmnt's key */
	f = open_memstream(&json, &len);
	cr_assert_eq(mntsnap_render(l, MNTSNAP_FORMAT_JSON, f), 0);
	fclose(f);
	snprintf(needle, sizeof(needle), "\"uuid\":\"%s\"", UUID1);
	cr_assert(strstr(json, needle), "no %s in the JSON", needle);
	free(json);

	/*
	 * The same filesystem with another UUID (tune2fs on the unmounted
	 * image). tune2fs -U refuses a metadata_csum filesystem mounted after
	 * its last check (mkfs and mount in different seconds) until e2fsck -f
	 * has run: check it first, or the test depends on the clock.
	 */
	run("umount %s/e && e2fsck -fy %s/e.img >/dev/null 2>&1 && tune2fs -U %s %s/e.img >/dev/null"
	    " && mount -o loop %s/e.img %s/e", BASE, BASE, UUID2, BASE, BASE, BASE);
	b = capture(NULL, 0, MNTSNAP_MASK_FULL, MNTSNAP_BACKEND_STATMOUNT);
	assert_uuid(b, BASE "/e", UUID2);
	cr_assert_eq(mntsnap_diff_with(l, b, &dopts, &d), 0);
	for (size_t i = 0; i < mntsnap_diff_count(d); i++) {
		struct mntsnap_diff_entry x;
		struct mntsnap_mount m;

		cr_assert_eq(mntsnap_diff_get(d, i, &x), 0);
		if (x.kind == MNTSNAP_DIFF_CHANGED &&
		    !mntsnap_snapshot_get(b, (size_t)x.new_index, &m) &&
		    !strcmp(m.mount_point, BASE "/e"))
			e = x;
	}
	cr_assert_eq(e.kind, MNTSNAP_DIFF_CHANGED, "the UUID change was not reported");
	cr_assert(e.changed & MNTSNAP_CHANGE_UUID, "changed 0x%x", e.changed);
	cr_assert_str_eq(mntsnap_diff_change_name(MNTSNAP_CHANGE_UUID), "uuid");
	/* both renderings name the change, with the old and the new value */
	f = open_memstream(&json, &len);
	cr_assert_eq(mntsnap_diff_render(d, MNTSNAP_DIFF_FORMAT_TEXT, f), 0);
	fclose(f);
	snprintf(needle, sizeof(needle), "    uuid: %s -> %s\n", UUID1, UUID2);
	cr_assert(strstr(json, needle), "no \"%s\" in the text diff:\n%s", needle, json);
	free(json);
	f = open_memstream(&json, &len);
	cr_assert_eq(mntsnap_diff_render(d, MNTSNAP_DIFF_FORMAT_JSON, f), 0);
	fclose(f);
	/* the loop device may change with the remount: "source" can be there too */
	fields = strstr(json, "\"fields\":[");
	cr_assert_not_null(fields, "%s", json);
	fields[strcspn(fields, "]")] = '\0';
	cr_assert(strstr(fields, "\"uuid\""), "UUID not named in the JSON diff: %s", fields);
	free(json);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
	mntsnap_snapshot_free(l);
}

Test(uuid, other_namespace_direct_and_entered)
{
	const uint32_t routes[] = { MNTSNAP_CAPTURE_NS_DIRECT, MNTSNAP_CAPTURE_NS_ENTER };
	struct mntsnap_ns *ns;
	int go[2], ready[2], st;
	pid_t pid;
	char c;

	setup();
	mount_image("ext4", "e", UUID1);
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		/* a namespace of its own, with a copy of the loop mount; it
		 * exits when the test does (end of file on go), even a failed one */
		close(go[1]);
		if (unshare(CLONE_NEWNS) || write(ready[1], "r", 1) != 1)
			_exit(1);
		_exit(read(go[0], &c, 1) < 0);
	}
	cr_assert_eq(read(ready[0], &c, 1), 1);
	cr_assert_eq(mntsnap_ns_open_pid(pid, &ns), 0);
	for (int i = 0; i < 2; i++) {
		struct mntsnap_snapshot *s = capture(ns, routes[i],
						     MNTSNAP_MASK_DEFAULT | MNTSNAP_F_UUID,
						     MNTSNAP_BACKEND_AUTO);

		assert_uuid(s, BASE "/e", UUID1);
		mntsnap_snapshot_free(s);
	}
	mntsnap_ns_free(ns);
	cr_assert_eq(write(go[1], "g", 1), 1);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st));
}

Test(uuid, cli_json_as_findmnt)
{
	const char *bin = getenv("MNTSNAP_BIN");
	char *ours, *theirs;

	if (!bin)
		cr_skip_test("MNTSNAP_BIN not set (run through meson test)");
	setup();
	mount_image("ext4", "e", UUID1);
	/* the same JSON value (findmnt indents, mntsnap -J does not) */
	run("%s list -J -o TARGET,UUID %s/e > %s/ours.json", bin, BASE, BASE);
	run("findmnt -J -o TARGET,UUID %s/e > %s/theirs.json", BASE, BASE);
	run("python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); "
	    "sys.exit(a != b or a[\"filesystems\"][0][\"uuid\"] != \"%s\")' %s/ours.json "
	    "%s/theirs.json",
	    UUID1, BASE, BASE);
	ours = ms_read_file(BASE "/ours.json", NULL);
	theirs = ms_read_file(BASE "/theirs.json", NULL);
	cr_assert(strstr(ours, "\"uuid\":\"" UUID1 "\""), "%s", ours);
	cr_assert(strstr(theirs, "\"uuid\": \"" UUID1 "\""), "%s", theirs);
	free(ours);
	free(theirs);
	ours = output("%s list -n -o UUID %s/e", bin, BASE);
	cr_assert_str_eq(first_line(ours), UUID1);
	free(ours);
}

Test(uuid, refresh_reads_new_mounts)
{
	struct mntsnap_snapshot *s;

	setup();
	mount_image("ext4", "e", UUID1);
	s = capture(NULL, 0, MNTSNAP_MASK_FULL, MNTSNAP_BACKEND_STATMOUNT);
	assert_uuid(s, BASE "/e", UUID1);
	mount_image("ext4", "f", UUID2);
	run("mkdir -p %s/g && mount --bind %s/e %s/g", BASE, BASE, BASE);
	cr_assert_eq(mntsnap_refresh(s), 2);
	assert_uuid(s, BASE "/e", UUID1);
	assert_uuid(s, BASE "/f", UUID2);
	assert_uuid(s, BASE "/g", UUID1);
	mntsnap_snapshot_free(s);
}

/*
 * Mounts refresh fetches again (an existing mount remounted read-only, a
 * superblock remounted with another option) and the ids-only refresh:
 * every record of the filesystem still has its UUID afterwards, as a
 * fresh capture has.
 */
Test(uuid, refresh_keeps_refetched_and_ids_only)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, ids, .flags = MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);
	struct mntsnap_snapshot *s;

	setup();
	mount_image("ext4", "e", UUID1);
	run("mkdir -p %s/g && mount --bind %s/e %s/g", BASE, BASE, BASE);
	s = capture(NULL, 0, MNTSNAP_MASK_FULL, MNTSNAP_BACKEND_STATMOUNT);
	assert_uuid(s, BASE "/g", UUID1);
	run("mount -o remount,bind,ro %s/g", BASE);
	cr_assert_geq(mntsnap_refresh(s), 1);
	assert_uuid(s, BASE "/e", UUID1);
	assert_uuid(s, BASE "/g", UUID1);
	run("mount -o remount,commit=17 %s/e", BASE);
	cr_assert_geq(mntsnap_refresh(s), 1);
	assert_uuid(s, BASE "/e", UUID1);
	assert_uuid(s, BASE "/g", UUID1);
	run("mkdir -p %s/h && mount --bind %s/e %s/h", BASE, BASE, BASE);
	cr_assert_geq(mntsnap_refresh_with(s, &ids), 1);
	assert_uuid(s, BASE "/e", UUID1);
	assert_uuid(s, BASE "/h", UUID1);
	mntsnap_snapshot_free(s);
}

/*
 * A target whose own /dev has a udev-style by-uuid link naming our device
 * with a made-up UUID, and whose ext4 mount point is over-mounted (so the
 * ioctl cannot answer and the udev step runs): neither route (directly,
 * through the entering helper) takes the target's word. The caller's own
 * udev may know the real UUID; the decoy never.
 */
#define DECOY "deadbeef-dead-4bad-8bad-baddecoy0001"
Test(uuid, target_udev_links_never_read)
{
	const uint32_t routes[] = { MNTSNAP_CAPTURE_NS_DIRECT, MNTSNAP_CAPTURE_NS_ENTER };
	struct mntsnap_ns *ns;
	int go[2], ready[2], st;
	struct stat sb;
	pid_t pid;
	char c;

	setup();
	mount_image("ext4", "e", UUID1);
	cr_assert_eq(stat(BASE "/e", &sb), 0);
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		close(go[1]); /* exits when the test does, even a failed one */
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("t", BASE "/e", "tmpfs", 0, NULL) || mount("d", "/dev", "tmpfs", 0, NULL) ||
		    mknod("/dev/decoy0", S_IFBLK | 0600, sb.st_dev) ||
		    mkdir("/dev/disk", 0755) || mkdir("/dev/disk/by-uuid", 0755) ||
		    symlink("../../decoy0", "/dev/disk/by-uuid/" DECOY) ||
		    write(ready[1], "r", 1) != 1)
			_exit(1);
		_exit(read(go[0], &c, 1) < 0);
	}
	cr_assert_eq(read(ready[0], &c, 1), 1);
	cr_assert_eq(mntsnap_ns_open_pid(pid, &ns), 0);
	for (int i = 0; i < 2; i++) {
		struct mntsnap_snapshot *s = capture(ns, routes[i],
						     MNTSNAP_MASK_DEFAULT | MNTSNAP_F_UUID,
						     MNTSNAP_BACKEND_AUTO);
		int seen = 0;

		for (size_t k = 0; k < mntsnap_snapshot_count(s); k++) {
			struct mntsnap_mount m;

			cr_assert_eq(mntsnap_snapshot_get(s, k, &m), 0);
			if (strcmp(m.mount_point, BASE "/e") || strcmp(m.fs_type, "ext4"))
				continue;
			seen++;
			if (m.mask & MNTSNAP_F_UUID)
				cr_assert_str_eq(m.uuid, UUID1, "route %d read the target's udev", i);
		}
		cr_assert_eq(seen, 1, "route %d: the over-mounted ext4 not captured", i);
		mntsnap_snapshot_free(s);
	}
	mntsnap_ns_free(ns);
	cr_assert_eq(write(go[1], "g", 1), 1);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st));
}

/*
 * The udev step of a foreign namespace's mount reads the caller's
 * /dev/disk/by-uuid on both routes: the ext4 is over-mounted in the
 * target (the ioctl cannot answer), and the caller's /dev (a tmpfs in
 * this test's namespace, laid out as udev does) names its device. The
 * entering helper has to bring that directory along: inside, path
 * lookups are refused and /dev is the target's.
 */
#define UDEV_UUID "c0ffee00-1234-4567-89ab-0123456789ab"
Test(uuid, caller_udev_on_both_routes)
{
	const uint32_t routes[] = { MNTSNAP_CAPTURE_NS_DIRECT, MNTSNAP_CAPTURE_NS_ENTER };
	struct mntsnap_ns *ns;
	int go[2], ready[2], st;
	struct stat sb;
	pid_t pid;
	char c;

	setup();
	mount_image("ext4", "e", UUID1);
	cr_assert_eq(stat(BASE "/e", &sb), 0);
	cr_assert_eq(mount("d", "/dev", "tmpfs", 0, NULL), 0);
	cr_assert_eq(mknod("/dev/loopx", S_IFBLK | 0600, sb.st_dev), 0);
	cr_assert_eq(mkdir("/dev/disk", 0755), 0);
	cr_assert_eq(mkdir("/dev/disk/by-uuid", 0755), 0);
	cr_assert_eq(symlink("../../loopx", "/dev/disk/by-uuid/" UDEV_UUID), 0);
	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		close(go[1]); /* exits when the test does, even a failed one */
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("t", BASE "/e", "tmpfs", 0, NULL) || write(ready[1], "r", 1) != 1)
			_exit(1);
		_exit(read(go[0], &c, 1) < 0);
	}
	cr_assert_eq(read(ready[0], &c, 1), 1);
	cr_assert_eq(mntsnap_ns_open_pid(pid, &ns), 0);
	for (int i = 0; i < 2; i++) {
		struct mntsnap_snapshot *s = capture(ns, routes[i],
						     MNTSNAP_MASK_DEFAULT | MNTSNAP_F_UUID,
						     MNTSNAP_BACKEND_AUTO);
		int seen = 0;

		for (size_t k = 0; k < mntsnap_snapshot_count(s); k++) {
			struct mntsnap_mount m;

			cr_assert_eq(mntsnap_snapshot_get(s, k, &m), 0);
			if (strcmp(m.mount_point, BASE "/e") || strcmp(m.fs_type, "ext4"))
				continue;
			seen++;
			cr_assert(m.mask & MNTSNAP_F_UUID, "route %d: no UUID from the caller's udev",
				  i);
			cr_assert_str_eq(m.uuid, UDEV_UUID, "route %d", i);
		}
		cr_assert_eq(seen, 1, "route %d: the over-mounted ext4 not captured", i);
		mntsnap_snapshot_free(s);
	}
	mntsnap_ns_free(ns);
	cr_assert_eq(write(go[1], "g", 1), 1);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && !WEXITSTATUS(st));
}
