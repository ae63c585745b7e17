// SPDX-License-Identifier: MIT
/*
 * Lookups in a snapshot (lib/lookup.c): every answer against a brute-force
 * scan of the records, on parsed text (stacked, covered, file-bind mounts,
 * several roots, odd spellings of paths), on live tables of a private
 * namespace through both backends, and on the same tables saved and
 * loaded; where the path exists on the live system, the mount a path is
 * on against the kernel's own answer (statx STATX_MNT_ID of the path).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"

#define BASE "/tmp/mntsnap-lookup"

/* ---- brute force: linear scans, no index ------------------------------- */

static size_t count(const struct mntsnap_snapshot *s)
{
	return mntsnap_snapshot_count(s);
}

static struct mntsnap_mount rec(const struct mntsnap_snapshot *s, long i)
{
	struct mntsnap_mount m;

	cr_assert_eq(mntsnap_snapshot_get(s, (size_t)i, &m), 0, "record %ld", i);
	return m;
}

/* The child of cur at mount point mp, the latest where several (linear). */
static long bf_child_at(const struct mntsnap_snapshot *s, long cur, const char *mp)
{
	long hit = -1;

	for (size_t i = 0; i < count(s); i++) {
		struct mntsnap_mount m = rec(s, (long)i);

		if ((long)i != cur && (long)m.parent_index == cur && !strcmp(m.mount_point, mp))
			hit = (long)i;
	}
	return hit;
}

static long bf_climb(const struct mntsnap_snapshot *s, long cur, const char *mp)
{
	for (long c; (c = bf_child_at(s, cur, mp)) >= 0;)
		cur = c;
	return cur;
}

/* The root at the longest prefix of path (findmnt's first), linear. */
static long bf_root(const struct mntsnap_snapshot *s, const char *path, size_t *ret_len)
{
	char pre[4096];
	size_t n = strlen(path);

	for (size_t len = n; len > 0; len--) {
		long best = -1;

		if (len < n && path[len] != '/')
			continue;
		memcpy(pre, path, len);
		pre[len] = '\0';
		for (size_t k = 0; k < count(s); k++) {
			long i = mntsnap_snapshot_tree_index(s, k);
			struct mntsnap_mount m = rec(s, i);

			/* roots in tree order: findmnt's first */
			if (m.parent_index == (uint32_t)i && !strcmp(m.mount_point, pre)) {
				best = i;
				break;
			}
		}
		if (best >= 0) {
			*ret_len = len;
			return best;
		}
	}
	for (size_t k = 0; k < count(s); k++) {
		long i = mntsnap_snapshot_tree_index(s, k);
		struct mntsnap_mount m = rec(s, i);

		if (m.parent_index == (uint32_t)i && !strcmp(m.mount_point, "/")) {
			*ret_len = 1;
			return i;
		}
	}
	return -1;
}

/* The path walk, one linear scan per component. path: normalized. */
static long bf_find_path(const struct mntsnap_snapshot *s, const char *path)
{
	char pre[4096];
	size_t n = strlen(path), len;
	long cur = bf_root(s, path, &len);

	if (cur < 0)
		return -ENOENT;
	memcpy(pre, path, len);
	pre[len] = '\0';
	cur = bf_climb(s, cur, pre);
	while (len < n) {
		len++;
		while (len < n && path[len] != '/')
			len++;
		memcpy(pre, path, len);
		pre[len] = '\0';
		cur = bf_climb(s, cur, pre);
	}
	return cur;
}

static long bf_find_mount_point(const struct mntsnap_snapshot *s, const char *path)
{
	long v = bf_find_path(s, path), latest = -1;

	if (v >= 0 && !strcmp(rec(s, v).mount_point, path))
		return v;
	for (size_t i = 0; i < count(s); i++)
		if (!strcmp(rec(s, (long)i).mount_point, path))
			latest = (long)i;
	return latest < 0 ? -ENOENT : bf_climb(s, latest, path);
}

/* Every record at mount point path (bf) and through the API: the same set. */
static void check_all_at(const struct mntsnap_snapshot *s, const char *path)
{
	size_t n = count(s), want = 0, got = 0;
	bool *seen = calloc(n + 1, 1);

	cr_assert(seen);
	for (long i = mntsnap_snapshot_next_mount_point(s, path, -1); i >= 0;
	     i = mntsnap_snapshot_next_mount_point(s, path, i)) {
		cr_assert(i < (long)n && !seen[i], "%s: %ld twice", path, i);
		seen[i] = true;
		cr_assert_str_eq(rec(s, i).mount_point, path);
		got++;
	}
	for (size_t i = 0; i < n; i++)
		want += !strcmp(rec(s, (long)i).mount_point, path);
	cr_assert_eq(got, want, "%s: %zu mounts there, the lookup gave %zu", path, want, got);
	free(seen);
}

static void check_source(const struct mntsnap_snapshot *s, const char *source)
{
	long prev = -1, i;

	/* storage order, exactly the records with that source */
	for (size_t k = 0; k < count(s); k++) {
		struct mntsnap_mount m = rec(s, (long)k);

		if (!(m.mask & MNTSNAP_F_SOURCE) || strcmp(m.source, source))
			continue;
		i = mntsnap_snapshot_next_source(s, source, prev);
		cr_assert_eq(i, (long)k, "source %s after %ld: %ld, not %zu", source, prev, i, k);
		prev = i;
	}
	cr_assert_eq(mntsnap_snapshot_next_source(s, source, prev), -ENOENT, "source %s", source);
}

static void check_path(const struct mntsnap_snapshot *s, const char *path)
{
	long want = bf_find_path(s, path), got = mntsnap_snapshot_find_path(s, path);

	cr_assert_eq(got, want, "find_path %s: %ld, brute force %ld", path, got, want);
	want = bf_find_mount_point(s, path);
	got = mntsnap_snapshot_find_mount_point(s, path);
	cr_assert_eq(got, want, "find_mount_point %s: %ld, brute force %ld", path, got, want);
	check_all_at(s, path);
}

/* Every lookup the table's own strings suggest, against the scans. */
static void check_everything(const struct mntsnap_snapshot *s)
{
	size_t n = count(s);

	for (size_t i = 0; i < n; i++) {
		struct mntsnap_mount m = rec(s, (long)i);
		char sub[4200];
		long p = mntsnap_snapshot_parent(s, i), st = mntsnap_snapshot_stacked_on(s, i);

		cr_assert_eq(p, m.parent_index == i ? -ENOENT : (long)m.parent_index);
		cr_assert_eq(st, p >= 0 && !strcmp(rec(s, p).mount_point, m.mount_point) ? p : -ENOENT,
			     "stacked_on %zu", i);
		check_path(s, m.mount_point);
		snprintf(sub, sizeof(sub), "%s/x/y", strcmp(m.mount_point, "/") ? m.mount_point : "");
		check_path(s, sub);
		if ((m.mask & MNTSNAP_F_SOURCE) && m.source[0])
			check_source(s, m.source);
		/* the parent chain ends at a root, depth steps long */
		{
			uint32_t steps = 0;

			for (long q = (long)i; (q = mntsnap_snapshot_parent(s, (size_t)q)) >= 0;)
				steps++;
			cr_assert_eq(steps, m.depth, "parent chain of %zu", i);
		}
	}
}

static struct mntsnap_snapshot *parse(const char *text)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &err);
	int r = mntsnap_parse_mountinfo(text, strlen(text), &o, &s);

	cr_assert_eq(r, 0, "parse: %s (line %u: %s)", strerror(-r), err.line, err.msg);
	return s;
}

static long by_old(const struct mntsnap_snapshot *s, uint32_t id)
{
	long i = mntsnap_snapshot_find_old(s, id);

	cr_assert_geq(i, 0, "old id %u", id);
	return i;
}

/*
 * /  (20)
 * ├─/s (21, s1) └─/s (22, s2) └─/s (23, s3)       a stack of three
 * ├─/a/b (24, hidden)                              covered by /a after it
 * ├─/a (25, cover) └─/a/b (29, over)               mounted on the cover
 * ├─/f/file (26, bind of a file)
 * ├─/p (27) └─/p/q (28)
 * and a second root /r (40), as a filtered table can have.
 */
static const char table[] =
	"20 1 0:20 / / rw - tmpfs root rw\n"
	"21 20 0:21 / /s rw - tmpfs s1 rw\n"
	"22 21 0:22 / /s rw - tmpfs s2 rw\n"
	"23 22 0:23 / /s rw - tmpfs s3 rw\n"
	"24 20 0:24 / /a/b rw - tmpfs hidden rw\n"
	"25 20 0:25 / /a rw - tmpfs cover rw\n"
	"26 20 0:20 /data/file /f/file rw - tmpfs root rw\n"
	"27 20 0:27 / /p rw - tmpfs shared rw\n"
	"28 27 0:28 / /p/q rw - tmpfs shared rw\n"
	"29 25 0:29 / /a/b rw - tmpfs over rw\n"
	"40 39 0:40 / /r rw - tmpfs other rw\n"
	"41 40 0:41 / /r/x rw - tmpfs shared rw\n";

LTest(lookup, parsed_table)
{
	struct mntsnap_snapshot *s = parse(table);

	cr_assert_eq(mntsnap_snapshot_find_path(s, "/s/dir/file"), by_old(s, 23));
	cr_assert_eq(mntsnap_snapshot_find_mount_point(s, "/s"), by_old(s, 23));
	cr_assert_eq(mntsnap_snapshot_stacked_on(s, (size_t)by_old(s, 23)), by_old(s, 22));
	cr_assert_eq(mntsnap_snapshot_stacked_on(s, (size_t)by_old(s, 22)), by_old(s, 21));
	cr_assert_eq(mntsnap_snapshot_stacked_on(s, (size_t)by_old(s, 21)), -ENOENT);
	/* the covered mount is reached by no path; the one on the cover is */
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/a/b/c"), by_old(s, 29));
	cr_assert_eq(mntsnap_snapshot_find_mount_point(s, "/a/b"), by_old(s, 29));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/a/c"), by_old(s, 25));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/f/file"), by_old(s, 26));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/f/other"), by_old(s, 20));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/"), by_old(s, 20));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/pq"), by_old(s, 20), "a prefix, not a component");
	/* the second root answers for paths below it */
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/r/x/y"), by_old(s, 41));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/r/y"), by_old(s, 40));
	/* spellings: the text of the path, not its bytes */
	cr_assert_eq(mntsnap_snapshot_find_path(s, "//p///q/"), by_old(s, 28));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/p/./q/z/.."), by_old(s, 28));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/p/q/../../s"), by_old(s, 23));
	cr_assert_eq(mntsnap_snapshot_find_path(s, "/.."), by_old(s, 20));
	cr_assert_eq(mntsnap_snapshot_find_mount_point(s, "/p/"), by_old(s, 27));
	cr_assert_eq(mntsnap_snapshot_find_mount_point(s, "/p/q/z"), -ENOENT);
	cr_assert_eq(mntsnap_snapshot_find_mount_point(s, "/pq"), -ENOENT);
	/* sources: storage order, exact */
	cr_assert_eq(mntsnap_snapshot_next_source(s, "shared", -1), by_old(s, 27));
	cr_assert_eq(mntsnap_snapshot_next_source(s, "shared", by_old(s, 27)), by_old(s, 28));
	cr_assert_eq(mntsnap_snapshot_next_source(s, "shared", by_old(s, 28)), by_old(s, 41));
	cr_assert_eq(mntsnap_snapshot_next_source(s, "shared", by_old(s, 41)), -ENOENT);
	cr_assert_eq(mntsnap_snapshot_next_source(s, "share", -1), -ENOENT);
	cr_assert_eq(mntsnap_snapshot_next_source(s, "root", -1), by_old(s, 20));
	/* every mount at /a/b, the covered one too */
	cr_assert_geq(mntsnap_snapshot_next_mount_point(s, "/a/b", -1), 0);
	cr_assert_eq(mntsnap_snapshot_next_mount_point(s, "/a/b", by_old(s, 25)), -EINVAL);
	/* errors */
	cr_assert_eq(mntsnap_snapshot_find_path(s, "a/b"), -EINVAL);
	cr_assert_eq(mntsnap_snapshot_find_path(s, ""), -EINVAL);
	cr_assert_eq(mntsnap_snapshot_find_path(NULL, "/"), -EINVAL);
	cr_assert_eq(mntsnap_snapshot_find_path(s, NULL), -EINVAL);
	cr_assert_eq(mntsnap_snapshot_next_source(s, "", -1), -EINVAL);
	cr_assert_eq(mntsnap_snapshot_next_source(s, "root", 99), -ERANGE);
	cr_assert_eq(mntsnap_snapshot_parent(s, 99), -ERANGE);
	cr_assert_eq(mntsnap_snapshot_stacked_on(s, 99), -ERANGE);
	cr_assert_eq(mntsnap_snapshot_parent(s, (size_t)by_old(s, 40)), -ENOENT);
	cr_assert_eq(mntsnap_snapshot_parent(s, (size_t)by_old(s, 41)), by_old(s, 40));
	check_everything(s);
	mntsnap_snapshot_free(s);
}

LTest(lookup, every_test_table)
{
	/* the parser's collected tables: whatever they hold, the index and
	 * the scans agree */
	static const char *const dirs[] = { "findmnt-eq", "mountinfo", "mountinfo-real" };
	const char *src = getenv("MNTSNAP_SRCDIR");
	size_t files = 0;

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char dir[4096];
		struct dirent **list;
		int nl;

		cr_assert(src, "MNTSNAP_SRCDIR is not set");
		snprintf(dir, sizeof(dir), "%s/tests/data/%s", src, dirs[d]);
		nl = scandir(dir, &list, NULL, alphasort);
		cr_assert_geq(nl, 0, "%s: %s", dir, strerror(errno));
		for (int k = 0; k < nl; k++) {
			char path[8192], *text;
			struct mntsnap_snapshot *s = NULL;
			size_t len;

			snprintf(path, sizeof(path), "%s/%s", dir, list[k]->d_name);
			if (strstr(list[k]->d_name, ".txt") && (text = ms_read_file(path, &len))) {
				MNTSNAP_OPTS(mntsnap_capture_opts, o, .mask = 0);

				if (!mntsnap_parse_mountinfo(text, len, &o, &s) && count(s) < 400) {
					check_everything(s);
					files++;
				}
				mntsnap_snapshot_free(s);
				free(text);
			}
			free(list[k]);
		}
		free(list);
	}
	cr_assert_gt(files, 5, "only %zu tables checked", files);
}

static void mnt_ok(const char *src, const char *dst, const char *type, unsigned long flags)
{
	cr_assert_eq(mount(src, dst, type, flags, NULL), 0, "mount %s on %s: %s", src, dst,
		     strerror(errno));
}

/* The live scene: stacked, covered, a file bind mount, a bind of a subtree. */
static void live_scene(void)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/s");
	for (int i = 0; i < 3; i++)
		mnt_ok("lk-stack", BASE "/s", "tmpfs", 0);
	ms_mkdir_p(BASE "/s/in");
	ms_mkdir_p(BASE "/a/b");
	mnt_ok("lk-hidden", BASE "/a/b", "tmpfs", 0);
	ms_mkdir_p(BASE "/a/b/under");
	mnt_ok("lk-cover", BASE "/a", "tmpfs", 0);
	ms_mkdir_p(BASE "/a/b/c");
	mnt_ok("lk-over", BASE "/a/b", "tmpfs", 0);
	ms_mkdir_p(BASE "/a/b/c");
	ms_mkdir_p(BASE "/f");
	ms_write_text(BASE "/f/file", "x\n");
	ms_write_text(BASE "/target", "");
	mnt_ok(BASE "/f/file", BASE "/target", NULL, MS_BIND);
	ms_mkdir_p(BASE "/t/u/v");
	mnt_ok("lk-tree", BASE "/t/u", "tmpfs", 0);
	ms_mkdir_p(BASE "/t/u/w");
	mnt_ok("lk-leaf", BASE "/t/u/w", "tmpfs", 0);
	ms_mkdir_p(BASE "/rb");
	mnt_ok(BASE "/t", BASE "/rb", NULL, MS_BIND | MS_REC);
}

static const char *const live_paths[] = {
	BASE, BASE "/s", BASE "/s/in", BASE "/a", BASE "/a/b", BASE "/a/b/c", BASE "/target",
	BASE "/f/file", BASE "/t/u", BASE "/t/u/w", BASE "/rb/u/w", BASE "/rb/u", BASE "/rb",
	"/", "/proc", "/tmp",
};

/* statx's 32-bit mount id of an existing path: the kernel's own walk */
static uint32_t kernel_mnt_id(const char *path)
{
	struct statx st;

	cr_assert_eq(statx(AT_FDCWD, path, AT_NO_AUTOMOUNT, STATX_MNT_ID, &st), 0, "%s", path);
	return (uint32_t)st.stx_mnt_id;
}

static void check_live(const struct mntsnap_snapshot *s, const char *what)
{
	for (size_t k = 0; k < sizeof(live_paths) / sizeof(live_paths[0]); k++) {
		long i = mntsnap_snapshot_find_path(s, live_paths[k]);

		cr_assert_geq(i, 0, "%s: %s", what, live_paths[k]);
		cr_assert_eq(rec(s, i).id_old, kernel_mnt_id(live_paths[k]),
			     "%s: %s is on mount %u, the lookup says %u (%s)", what, live_paths[k],
			     kernel_mnt_id(live_paths[k]), rec(s, i).id_old, rec(s, i).mount_point);
		check_path(s, live_paths[k]);
	}
	check_everything(s);
}

static struct mntsnap_snapshot *capture(int backend)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend, .error = &err);
	int r = mntsnap_capture(&o, &s);

	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	return s;
}

LTest(lookup, live_tables_and_saved_ones)
{
	static const int backends[] = { MNTSNAP_BACKEND_STATMOUNT, MNTSNAP_BACKEND_MOUNTINFO };

	live_scene();
	for (size_t b = 0; b < 2; b++) {
		struct mntsnap_snapshot *s, *l = NULL;

		if (backends[b] == MNTSNAP_BACKEND_STATMOUNT && !mntsnap_have_statmount())
			continue;
		s = capture(backends[b]);
		check_live(s, mntsnap_backend_name(backends[b]));
		cr_assert_eq(mntsnap_snapshot_save(s, BASE "/snap"), 0);
		cr_assert_eq(mntsnap_snapshot_load(BASE "/snap", NULL, &l), 0);
		check_live(l, "loaded");
		/* the source lookup: the three of the stack, in storage order */
		{
			long i = mntsnap_snapshot_next_source(l, "lk-stack", -1), n = 0;

			for (; i >= 0; i = mntsnap_snapshot_next_source(l, "lk-stack", i))
				n++;
			cr_assert_eq(n, 3);
		}
		mntsnap_snapshot_free(l);
		mntsnap_snapshot_free(s);
	}
}

/* A refresh drops the indexes: lookups answer for the new table. */
LTest(lookup, after_refresh)
{
	struct mntsnap_snapshot *s;
	size_t before;

	if (!mntsnap_have_statmount())
		cr_skip_test("no statmount");
	live_scene();
	s = capture(MNTSNAP_BACKEND_STATMOUNT);
	cr_assert_eq(mntsnap_snapshot_find_mount_point(s, BASE "/new"), -ENOENT);
	before = mntsnap_snapshot_memory(s);
	cr_assert_eq(mntsnap_snapshot_next_source(s, "lk-stack", -1) >= 0, true);
	cr_assert_gt(mntsnap_snapshot_memory(s), before, "the indexes are counted");
	ms_mkdir_p(BASE "/new");
	mnt_ok("lk-new", BASE "/new", "tmpfs", 0);
	cr_assert_gt(mntsnap_refresh(s), 0);
	cr_assert_geq(mntsnap_snapshot_find_mount_point(s, BASE "/new"), 0);
	cr_assert_geq(mntsnap_snapshot_next_source(s, "lk-new", -1), 0);
	check_live(s, "refreshed");
	cr_assert_eq(umount(BASE "/new"), 0);
	cr_assert_gt(mntsnap_refresh(s), 0);
	cr_assert_eq(mntsnap_snapshot_find_mount_point(s, BASE "/new"), -ENOENT);
	cr_assert_eq(mntsnap_snapshot_next_source(s, "lk-new", -1), -ENOENT);
	mntsnap_snapshot_free(s);
}

struct racer {
	const struct mntsnap_snapshot *s;
	long got[2];
};

static void *race(void *p)
{
	struct racer *r = p;

	r->got[0] = mntsnap_snapshot_find_path(r->s, "/a/b/c");
	r->got[1] = mntsnap_snapshot_next_source(r->s, "shared", -1);
	return NULL;
}

/* The first lookups of a fresh snapshot from several threads at once. */
LTest(lookup, threads_build_the_index_once)
{
	for (int round = 0; round < 50; round++) {
		struct mntsnap_snapshot *s = parse(table);
		struct racer r[4];
		pthread_t t[4];

		for (int k = 0; k < 4; k++) {
			r[k] = (struct racer){ .s = s };
			cr_assert_eq(pthread_create(&t[k], NULL, race, &r[k]), 0);
		}
		for (int k = 0; k < 4; k++) {
			cr_assert_eq(pthread_join(t[k], NULL), 0);
			cr_assert_eq(r[k].got[0], by_old(s, 29));
			cr_assert_eq(r[k].got[1], by_old(s, 27));
		}
		mntsnap_snapshot_free(s);
	}
}
