// SPDX-License-Identifier: MIT
/*
 * mntsnap_diff: each kind of change made with mount(2) between two
 * captures shows up as the right entry and field, keyed by unique id, by
 * mount point + root + device (mountinfo backend, BY_PATH), and for
 * separately built trees (IGNORE_IDS + prefixes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"

#define BASE "/tmp/mntsnap-diff"

static struct mntsnap_snapshot *cap(int backend)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend, .error = &err);
	int r = mntsnap_capture(&o, &s);

	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	return s;
}

static void mnt(const char *src, const char *dst, const char *type, unsigned long fl,
		const char *data)
{
	if (!(fl & (MS_REMOUNT | MS_SHARED | MS_SLAVE | MS_PRIVATE | MS_UNBINDABLE | MS_MOVE)))
		ms_mkdir_p(dst);
	cr_assert_eq(mount(src, dst, type, fl, data), 0, "mount %s: %s", dst, strerror(errno));
}

static struct mntsnap_diff *diff(const struct mntsnap_snapshot *a,
				 const struct mntsnap_snapshot *b, uint32_t flags,
				 const char *op, const char *np)
{
	MNTSNAP_OPTS(mntsnap_diff_opts, o, .flags = flags, .old_prefix = op, .new_prefix = np);
	struct mntsnap_diff *d = NULL;

	cr_assert_eq(mntsnap_diff_with(a, b, &o, &d), 0);
	return d;
}

/* The entry whose new (or, for removals, old) mount point is mp. */
static struct mntsnap_diff_entry find(const struct mntsnap_diff *d,
				      const struct mntsnap_snapshot *a,
				      const struct mntsnap_snapshot *b, const char *mp)
{
	struct mntsnap_diff_entry e;
	struct mntsnap_mount m;

	for (size_t i = 0; i < mntsnap_diff_count(d); i++) {
		mntsnap_diff_get(d, i, &e);
		if (e.new_index >= 0)
			mntsnap_snapshot_get(b, (size_t)e.new_index, &m);
		else
			mntsnap_snapshot_get(a, (size_t)e.old_index, &m);
		if (!strcmp(m.mount_point, mp))
			return e;
	}
	cr_assert_fail("no diff entry for %s", mp);
	return e;
}

static char *render(const struct mntsnap_diff *d, int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(mntsnap_diff_render(d, format, f), 0);
	fclose(f);
	return buf;
}

static void assert_json(const char *json)
{
	FILE *p = popen("python3 -c 'import json,sys; json.load(sys.stdin)'", "w");

	if (!p)
		return;
	fputs(json, p);
	cr_assert_eq(pclose(p), 0, "invalid JSON:\n%s", json);
}

Test(diff, equal_snapshots)
{
	struct mntsnap_snapshot *a;
	struct mntsnap_diff *d;

	ms_private_ns(BASE);
	a = cap(MNTSNAP_BACKEND_STATMOUNT);
	d = diff(a, a, 0, NULL, NULL);
	cr_assert_eq(mntsnap_diff_count(d), 0);
	cr_assert_eq(mntsnap_diff_key(d), MNTSNAP_DIFF_KEY_ID);
	mntsnap_diff_free(d);
	d = diff(a, a, MNTSNAP_DIFF_BY_PATH, NULL, NULL);
	cr_assert_eq(mntsnap_diff_count(d), 0);
	cr_assert_eq(mntsnap_diff_key(d), MNTSNAP_DIFF_KEY_PATH);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
}

static void setup_before(void)
{
	mnt("gone", BASE "/gone", "tmpfs", 0, NULL);
	mnt("ro", BASE "/ro", "tmpfs", 0, NULL);
	mnt("sh", BASE "/sh", "tmpfs", 0, NULL);
	mnt("mv", BASE "/mv", "tmpfs", 0, NULL);
	mnt("opt", BASE "/opt", "tmpfs", 0, "size=1m");
	mnt("same", BASE "/same", "tmpfs", 0, NULL);
}

static void change_things(void)
{
	cr_assert_eq(umount(BASE "/gone"), 0);
	mnt("new", BASE "/new", "tmpfs", 0, NULL);
	mnt(NULL, BASE "/ro", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, NULL);
	mnt(NULL, BASE "/sh", NULL, MS_SHARED, NULL);
	ms_mkdir_p(BASE "/moved");
	mnt(BASE "/mv", BASE "/moved", NULL, MS_MOVE, NULL);
	mnt(NULL, BASE "/opt", NULL, MS_REMOUNT, "size=2m");
}

Test(diff, by_id_each_kind_of_change)
{
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_diff_entry e;
	struct mntsnap_diff *d;
	char *text, *json;

	ms_private_ns(BASE);
	setup_before();
	a = cap(MNTSNAP_BACKEND_STATMOUNT);
	change_things();
	b = cap(MNTSNAP_BACKEND_STATMOUNT);
	d = diff(a, b, 0, NULL, NULL);
	cr_assert_eq(mntsnap_diff_key(d), MNTSNAP_DIFF_KEY_ID);
	cr_assert_eq(mntsnap_diff_added(d), 1);
	cr_assert_eq(mntsnap_diff_removed(d), 1);
	cr_assert_eq(mntsnap_diff_changed(d), 4, "changed %zu", mntsnap_diff_changed(d));
	cr_assert_eq(mntsnap_diff_count(d), 6);

	e = find(d, a, b, BASE "/gone");
	cr_assert_eq(e.kind, MNTSNAP_DIFF_REMOVED);
	cr_assert_eq(e.new_index, -1);
	e = find(d, a, b, BASE "/new");
	cr_assert_eq(e.kind, MNTSNAP_DIFF_ADDED);
	e = find(d, a, b, BASE "/ro");
	cr_assert_eq(e.kind, MNTSNAP_DIFF_CHANGED);
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_ATTR, "0x%x", e.changed);
	e = find(d, a, b, BASE "/sh");
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_PROPAGATION | MNTSNAP_CHANGE_PEER_GROUP,
		     "0x%x", e.changed);
	e = find(d, a, b, BASE "/moved");
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_MOUNT_POINT, "0x%x", e.changed);
	e = find(d, a, b, BASE "/opt");
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_OPTIONS, "0x%x", e.changed);

	text = render(d, MNTSNAP_DIFF_FORMAT_TEXT);
	cr_assert(strstr(text, "- "), "%s", text);
	cr_assert(strstr(text, "+ "), "%s", text);
	cr_assert(strstr(text, "    attributes: rw,relatime -> ro,nosuid,relatime"), "%s", text);
	cr_assert(strstr(text, "    propagation: private -> shared:"), "%s", text);
	cr_assert(strstr(text, "    mount_point: " BASE "/mv -> " BASE "/moved"), "%s", text);
	cr_assert(strstr(text, "size=1024k"), "%s", text);
	json = render(d, MNTSNAP_DIFF_FORMAT_JSON);
	cr_assert(strstr(json, "\"key\":\"id\""));
	cr_assert(strstr(json, "\"fields\":[\"attributes\"]"), "%s", json);
	assert_json(json);
	free(text);
	free(json);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}

Test(diff, remount_is_not_add_remove_by_id)
{
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_diff *d;

	ms_private_ns(BASE);
	mnt("x", BASE "/x", "tmpfs", 0, NULL);
	a = cap(MNTSNAP_BACKEND_STATMOUNT);
	/*
	 * Same place, same options, but a new mount: ids tell them apart. It
	 * is made before the old one goes, so its device number differs too.
	 */
	mnt("x", BASE "/y", "tmpfs", 0, NULL);
	cr_assert_eq(umount(BASE "/x"), 0);
	mnt(BASE "/y", BASE "/x", NULL, MS_MOVE, NULL);
	cr_assert_eq(rmdir(BASE "/y"), 0);
	b = cap(MNTSNAP_BACKEND_STATMOUNT);
	d = diff(a, b, 0, NULL, NULL);
	cr_assert_eq(mntsnap_diff_added(d), 1);
	cr_assert_eq(mntsnap_diff_removed(d), 1);
	mntsnap_diff_free(d);
	/* by path they are the same mount, apart from the new device */
	d = diff(a, b, MNTSNAP_DIFF_BY_PATH, NULL, NULL);
	cr_assert_eq(mntsnap_diff_added(d), 1);
	cr_assert_eq(mntsnap_diff_removed(d), 1, "a new tmpfs has a new device");
	mntsnap_diff_free(d);
	d = diff(a, b, MNTSNAP_DIFF_IGNORE_IDS, NULL, NULL);
	cr_assert_eq(mntsnap_diff_count(d), 0);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}

Test(diff, by_path_mountinfo_backend)
{
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_diff_entry e;
	struct mntsnap_diff *d;
	char *json;

	ms_private_ns(BASE);
	setup_before();
	a = cap(MNTSNAP_BACKEND_MOUNTINFO);
	change_things();
	b = cap(MNTSNAP_BACKEND_MOUNTINFO);
	d = diff(a, b, 0, NULL, NULL);
	cr_assert_eq(mntsnap_diff_key(d), MNTSNAP_DIFF_KEY_PATH);
	/* a move is a removal plus an addition when paths are the key */
	cr_assert_eq(mntsnap_diff_added(d), 2);
	cr_assert_eq(mntsnap_diff_removed(d), 2);
	cr_assert_eq(mntsnap_diff_changed(d), 3);
	e = find(d, a, b, BASE "/ro");
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_ATTR, "0x%x", e.changed);
	e = find(d, a, b, BASE "/sh");
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_PROPAGATION | MNTSNAP_CHANGE_PEER_GROUP);
	e = find(d, a, b, BASE "/opt");
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_OPTIONS);
	json = render(d, MNTSNAP_DIFF_FORMAT_JSON);
	cr_assert(strstr(json, "\"key\":\"mount_point+root+device\""), "%s", json);
	assert_json(json);
	free(json);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}

Test(diff, stacked_same_key_paired_in_order)
{
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_diff_entry e;
	struct mntsnap_diff *d;

	ms_private_ns(BASE);
	mnt("t", BASE "/t", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/t/d");
	/* three binds of one directory stacked on one mount point: one key */
	for (int i = 0; i < 3; i++)
		mnt(BASE "/t/d", BASE "/stack", NULL, MS_BIND, NULL);
	a = cap(MNTSNAP_BACKEND_MOUNTINFO);
	mnt(NULL, BASE "/stack", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL); /* the top one */
	b = cap(MNTSNAP_BACKEND_MOUNTINFO);
	d = diff(a, b, 0, NULL, NULL);
	cr_assert_eq(mntsnap_diff_count(d), 1);
	mntsnap_diff_get(d, 0, &e);
	cr_assert_eq(e.kind, MNTSNAP_DIFF_CHANGED);
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_ATTR);
	cr_assert_eq(e.old_index, (long)mntsnap_snapshot_count(a) - 1, "the top of the stack");
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}

/* Two copies of one shape under different prefixes. */
static void shape(const char *root, bool split_group)
{
	char p[256], q[256];

	snprintf(p, sizeof(p), "%s/t", root);
	mnt("shape", p, "tmpfs", 0, "size=1m");
	mnt(NULL, p, NULL, MS_SHARED, NULL);
	snprintf(q, sizeof(q), "%s/t/sub", root);
	ms_mkdir_p(q);
	snprintf(q, sizeof(q), "%s/peer", root);
	mnt(p, q, NULL, MS_BIND, NULL);
	if (split_group) {
		mnt(NULL, q, NULL, MS_PRIVATE, NULL);
		mnt(NULL, q, NULL, MS_SHARED, NULL);
	}
	snprintf(q, sizeof(q), "%s/slave", root);
	mnt(p, q, NULL, MS_BIND, NULL);
	mnt(NULL, q, NULL, MS_SLAVE, NULL);
}

Test(diff, ignore_ids_with_prefixes)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_diff *d;
	struct mntsnap_diff_entry e;

	ms_private_ns(BASE);
	shape(BASE "/a", false);
	shape(BASE "/b", false);
	shape(BASE "/c", true);
	s = cap(MNTSNAP_BACKEND_STATMOUNT);
	/* a vs b: the same shape, other devices and peer group numbers */
	d = diff(s, s, MNTSNAP_DIFF_IGNORE_IDS, BASE "/a", BASE "/b");
	/* everything outside the prefixes matches itself; inside, a <-> b */
	for (size_t i = 0; i < mntsnap_diff_count(d); i++) {
		struct mntsnap_mount m;

		mntsnap_diff_get(d, i, &e);
		mntsnap_snapshot_get(s, (size_t)(e.new_index >= 0 ? e.new_index : e.old_index), &m);
		/* only the other trees' own mounts are unmatched */
		cr_assert_neq(e.kind, MNTSNAP_DIFF_CHANGED, "%s changed 0x%x", m.mount_point,
			      e.changed);
	}
	mntsnap_diff_free(d);
	/* a vs c: the peer became its own group */
	d = diff(s, s, MNTSNAP_DIFF_IGNORE_IDS, BASE "/a", BASE "/c");
	cr_assert_eq(mntsnap_diff_changed(d), 1);
	for (size_t i = 0; i < mntsnap_diff_count(d); i++) {
		struct mntsnap_mount m;

		mntsnap_diff_get(d, i, &e);
		if (e.kind != MNTSNAP_DIFF_CHANGED)
			continue;
		mntsnap_snapshot_get(s, (size_t)e.new_index, &m);
		cr_assert_str_eq(m.mount_point, BASE "/c/peer");
		cr_assert_eq(e.changed, MNTSNAP_CHANGE_PEER_GROUP, "0x%x", e.changed);
	}
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(s);
}

Test(diff, masks_limit_what_is_compared)
{
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_diff *d;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
		     .mask = MNTSNAP_F_ID | MNTSNAP_F_MOUNT_POINT);

	ms_private_ns(BASE);
	mnt("x", BASE "/x", "tmpfs", 0, NULL);
	cr_assert_eq(mntsnap_capture(&o, &a), 0);
	mnt(NULL, BASE "/x", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	cr_assert_eq(mntsnap_capture(&o, &b), 0);
	d = diff(a, b, 0, NULL, NULL);
	cr_assert_eq(mntsnap_diff_count(d), 0, "attr was not captured, so not compared");
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}

Test(diff, bad_arguments)
{
	struct mntsnap_snapshot *a;
	struct mntsnap_diff *d = NULL;
	struct mntsnap_diff_entry e;
	MNTSNAP_OPTS(mntsnap_diff_opts, o, .flags = 1U << 7);

	ms_private_ns(BASE);
	a = cap(MNTSNAP_BACKEND_STATMOUNT);
	cr_assert_eq(mntsnap_diff(NULL, a, &d), -EINVAL);
	cr_assert_eq(mntsnap_diff(a, a, NULL), -EINVAL);
	cr_assert_eq(mntsnap_diff_with(a, a, &o, &d), -EINVAL);
	cr_assert_null(d);
	cr_assert_eq(mntsnap_diff(a, a, &d), 0);
	cr_assert_eq(mntsnap_diff_get(d, 0, &e), -ERANGE);
	cr_assert_eq(mntsnap_diff_render(d, 7, stdout), -EINVAL);
	cr_assert_str_eq(mntsnap_diff_change_name(MNTSNAP_CHANGE_ATTR), "attributes");
	cr_assert_null(mntsnap_diff_change_name(3));
	mntsnap_diff_free(d);
	mntsnap_diff_free(NULL);
	mntsnap_snapshot_free(a);
}

/* The CLI next to this test binary in the build tree, or skip. */
static void cli_path(char *buf, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	cr_assert_gt(n, 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(buf, len, "%s/../examples/mntsnap", self);
	if (access(buf, X_OK))
		cr_skip_test("no mntsnap CLI at %s", buf);
}

static int run(const char *cmd)
{
	int st = system(cmd);

	cr_assert(WIFEXITED(st), "%s", cmd);
	return WEXITSTATUS(st);
}

Test(diff, cli_save_show_diff_exit_codes)
{
	char cli[4200], cmd[9000];

	ms_private_ns(BASE);
	cli_path(cli, sizeof(cli));
	mnt("a", BASE "/a", "tmpfs", 0, NULL);
	snprintf(cmd, sizeof(cmd), "%s save --under " BASE " " BASE "/1.bin", cli);
	cr_assert_eq(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s save --under " BASE " " BASE "/2.bin", cli);
	cr_assert_eq(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s diff " BASE "/1.bin " BASE "/2.bin >/dev/null", cli);
	cr_assert_eq(run(cmd), 0, "equal snapshots: exit 0");
	mnt("b", BASE "/b", "tmpfs", 0, NULL);
	snprintf(cmd, sizeof(cmd), "%s save --under " BASE " " BASE "/3.bin", cli);
	cr_assert_eq(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s diff " BASE "/1.bin " BASE "/3.bin | grep -q '^+ .*/b tmpfs b$'",
		 cli);
	cr_assert_eq(run(cmd), 0, "text names the added mount");
	snprintf(cmd, sizeof(cmd), "%s diff --format json " BASE "/1.bin " BASE "/3.bin >/dev/null", cli);
	cr_assert_eq(run(cmd), 1, "different: exit 1");
	snprintf(cmd, sizeof(cmd),
		 "%s diff --format json " BASE "/1.bin " BASE "/3.bin | "
		 "python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d[\"added\"] != 1)'",
		 cli);
	cr_assert_eq(run(cmd), 0, "JSON diff parses and counts one addition");
	snprintf(cmd, sizeof(cmd), "%s show -J " BASE "/3.bin | python3 -m json.tool >/dev/null",
		 cli);
	cr_assert_eq(run(cmd), 0, "show -J is valid JSON");
	snprintf(cmd, sizeof(cmd), "printf junk > " BASE "/bad.bin; %s diff " BASE "/1.bin " BASE
		 "/bad.bin 2>/dev/null", cli);
	cr_assert_eq(run(cmd), 2, "trouble: exit 2");
	snprintf(cmd, sizeof(cmd), "%s show " BASE "/nope.bin 2>/dev/null", cli);
	cr_assert_eq(run(cmd), 2);
}

/*
 * An empty value is a value: "no options" -> "size=1m" and "" -> a source
 * are changes, by id (statmount), by path (mountinfo) and with ids
 * ignored. Absent means only "not asked for, or not supported".
 */
static void empty_to_value(int backend, uint32_t flags)
{
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_diff_entry e;
	struct mntsnap_diff *d;

	ms_private_ns(BASE);
	mnt("", BASE "/x", "tmpfs", 0, NULL);
	a = cap(backend);
	mnt(NULL, BASE "/x", NULL, MS_REMOUNT, "size=1m");
	b = cap(backend);
	d = diff(a, b, flags, NULL, NULL);
	cr_assert_eq(mntsnap_diff_count(d), 1, "count %zu", mntsnap_diff_count(d));
	e = find(d, a, b, BASE "/x");
	cr_assert_eq(e.kind, MNTSNAP_DIFF_CHANGED);
	cr_assert_eq(e.changed, MNTSNAP_CHANGE_OPTIONS, "0x%x", e.changed);
	mntsnap_diff_free(d);
	/* and back: a value -> no options */
	d = diff(b, a, flags, NULL, NULL);
	cr_assert_eq(mntsnap_diff_changed(d), 1);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}

Test(diff, no_options_to_options_by_id)
{
	empty_to_value(MNTSNAP_BACKEND_STATMOUNT, 0);
}

Test(diff, no_options_to_options_by_path)
{
	empty_to_value(MNTSNAP_BACKEND_MOUNTINFO, 0);
}

Test(diff, no_options_to_options_ignore_ids)
{
	empty_to_value(MNTSNAP_BACKEND_STATMOUNT, MNTSNAP_DIFF_IGNORE_IDS);
}

/* Two trees built apart: an empty source, no options vs a source, options. */
Test(diff, empty_source_and_options_are_values)
{
	static const int backends[] = { MNTSNAP_BACKEND_STATMOUNT, MNTSNAP_BACKEND_MOUNTINFO };
	struct mntsnap_snapshot *s;
	struct mntsnap_diff_entry e;
	struct mntsnap_diff *d;

	ms_private_ns(BASE);
	mnt("", BASE "/a/t", "tmpfs", 0, NULL);
	mnt("src", BASE "/b/t", "tmpfs", 0, "size=1m");
	for (size_t i = 0; i < 2; i++) {
		s = cap(backends[i]);
		d = diff(s, s, MNTSNAP_DIFF_IGNORE_IDS, BASE "/a", BASE "/b");
		/* the rest is the other trees' own mounts, each unmatched once */
		cr_assert_eq(mntsnap_diff_changed(d), 1, "backend %d", backends[i]);
		for (size_t j = 0; j < mntsnap_diff_count(d); j++) {
			mntsnap_diff_get(d, j, &e);
			if (e.kind == MNTSNAP_DIFF_CHANGED)
				break;
		}
		cr_assert_eq(e.changed, MNTSNAP_CHANGE_SOURCE | MNTSNAP_CHANGE_OPTIONS,
			     "backend %d: 0x%x", backends[i], e.changed);
		mntsnap_diff_free(d);
		mntsnap_snapshot_free(s);
	}
}

/* The CLI, as a user tries it: save, remount size=1m, save, diff. */
Test(diff, cli_remount_size_is_a_difference)
{
	char cli[4200], cmd[9000];

	ms_private_ns(BASE);
	cli_path(cli, sizeof(cli));
	mnt("none", BASE "/w", "tmpfs", 0, NULL);
	snprintf(cmd, sizeof(cmd), "%s save " BASE "/a.bin", cli);
	cr_assert_eq(run(cmd), 0);
	mnt(NULL, BASE "/w", NULL, MS_REMOUNT, "size=1m");
	snprintf(cmd, sizeof(cmd), "%s save " BASE "/b.bin", cli);
	cr_assert_eq(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s diff " BASE "/a.bin " BASE "/b.bin | grep -q 'size=1024k'",
		 cli);
	cr_assert_eq(run(cmd), 0, "the option change is printed");
	snprintf(cmd, sizeof(cmd), "%s diff " BASE "/a.bin " BASE "/b.bin >/dev/null", cli);
	cr_assert_eq(run(cmd), 1, "different: exit 1");
}


/*
 * A diff is read in a terminal. Every string of an added, a removed and a
 * changed entry (mount point, root, source, fs type, subtype, options)
 * holds every control byte, DEL and every C1 control (raw and as UTF-8):
 * the text diff writes none of them raw, nor a space or a backslash (so
 * fields still split on spaces and "\x1b" cannot be faked), as the table
 * renderer's \xHH. The tables are mountinfo text, where the kernel writes
 * these bytes raw (only space, tab, newline and backslash are \ooo).
 */
static void hostile_bytes(char *o, size_t len)
{
	size_t n = 0;

	for (int c = 1; c < 0x20 && n + 4 < len; c++) {
		if (c == '\t' || c == '\n')
			n += (size_t)snprintf(o + n, len - n, "\\%03o", c);
		else
			o[n++] = (char)c;
	}
	o[n++] = 0x7f;
	for (int c = 0x80; c < 0xa0 && n + 4 < len; c++) {
		o[n++] = (char)0xc2; /* U+0080..U+009F as UTF-8 */
		o[n++] = (char)c;
		o[n++] = (char)c; /* and the raw byte */
	}
	n += (size_t)snprintf(o + n, len - n, "\\040\\134");
	o[n] = '\0';
}

static void hostile_line(char *o, size_t len, int id, const char *tag, const char *opt)
{
	char h[512];

	hostile_bytes(h, sizeof(h));
	snprintf(o, len,
		 "%d 1 0:%d /r%s /m%s%s rw,relatime - t%s.s%s s%s%s rw,o%s%s\n", id, 40 + id, h,
		 tag, h, h, h, h, tag, opt, h);
}

static void assert_terminal_safe(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		cr_assert(*p == '\n' || (*p >= 0x20 && *p < 0x7f),
			  "raw byte 0x%02x at offset %td of:\n%s", *p, (const char *)p - text,
			  text);
		cr_assert(*p != '\\' || p[1] == 'x', "a backslash that is no \\xHH:\n%s", text);
	}
}

Test(diff, text_escapes_every_control_byte_in_every_field)
{
	static char a_txt[16384], b_txt[16384], l[3][4096];
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_diff *d;
	char *text;
	size_t lines = 0;

	hostile_line(l[0], sizeof(l[0]), 1, "gone", "1");
	hostile_line(l[1], sizeof(l[1]), 2, "chg", "1");
	snprintf(a_txt, sizeof(a_txt), "%s%s", l[0], l[1]);
	hostile_line(l[1], sizeof(l[1]), 2, "chg", "2"); /* options differ */
	hostile_line(l[2], sizeof(l[2]), 3, "new", "1");
	snprintf(b_txt, sizeof(b_txt), "%s%s", l[1], l[2]);
	cr_assert_eq(mntsnap_parse_mountinfo(a_txt, strlen(a_txt), NULL, &a), 0);
	cr_assert_eq(mntsnap_parse_mountinfo(b_txt, strlen(b_txt), NULL, &b), 0);
	/* by path, ids ignored: the device differs too, fields of every kind */
	d = diff(a, b, MNTSNAP_DIFF_IGNORE_IDS, NULL, NULL);
	cr_assert_eq(mntsnap_diff_added(d), 1);
	cr_assert_eq(mntsnap_diff_removed(d), 1);
	cr_assert_eq(mntsnap_diff_changed(d), 1);
	text = render(d, MNTSNAP_DIFF_FORMAT_TEXT);
	assert_terminal_safe(text);
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	cr_assert_eq(lines, 4, "one line per entry and one per changed field:\n%s", text);
	cr_assert(strstr(text, "\\x1b"), "ESC is written as \\x1b:\n%s", text);
	cr_assert(strstr(text, "\\xc2\\x9b"), "a C1 control as UTF-8 is escaped:\n%s", text);
	free(text);
	mntsnap_diff_free(d);
	/* and a changed entry naming every string field: other tables */
	snprintf(b_txt, sizeof(b_txt), "%s", l[1]);
	for (char *p = b_txt; *p; p++)
		if (*p == 't' && p[1] == '\x01')
			*p = 'u'; /* the fs type */
	mntsnap_snapshot_free(b);
	cr_assert_eq(mntsnap_parse_mountinfo(b_txt, strlen(b_txt), NULL, &b), 0);
	d = diff(a, b, MNTSNAP_DIFF_IGNORE_IDS, NULL, NULL);
	text = render(d, MNTSNAP_DIFF_FORMAT_TEXT);
	assert_terminal_safe(text);
	cr_assert(strstr(text, "fs_type: "), "%s", text);
	free(text);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}

/*
 * diff --ignore-ids on trees built apart (new ids, devices and peer group
 * numbers every time, as after a restore): the same shape is equal, and a
 * changed option, a missing mount, an extra mount and a changed
 * propagation structure are each reported, by the CLI, with exit 1.
 */
enum variant { V_SAME, V_OPTION, V_MISSING, V_EXTRA, V_PEER_SPLIT, V_SLAVE_PRIVATE };

static void build_tree(const char *root, enum variant v)
{
	char p[256], q[256];

	snprintf(p, sizeof(p), "%s/t", root);
	mnt("shape", p, "tmpfs", 0, v == V_OPTION ? "size=2m" : "size=1m");
	mnt(NULL, p, NULL, MS_SHARED, NULL);
	snprintf(q, sizeof(q), "%s/t/sub", root);
	ms_mkdir_p(q);
	if (v != V_MISSING)
		mnt("sub", q, "tmpfs", 0, NULL);
	if (v == V_EXTRA) {
		snprintf(q, sizeof(q), "%s/t/extra", root);
		mnt("extra", q, "tmpfs", 0, NULL);
	}
	snprintf(q, sizeof(q), "%s/t/peer", root);
	mnt(p, q, NULL, MS_BIND, NULL);
	if (v == V_PEER_SPLIT) {
		mnt(NULL, q, NULL, MS_PRIVATE, NULL);
		mnt(NULL, q, NULL, MS_SHARED, NULL);
	}
	snprintf(q, sizeof(q), "%s/t/slave", root);
	mnt(p, q, NULL, MS_BIND, NULL);
	mnt(NULL, q, NULL, v == V_SLAVE_PRIVATE ? MS_PRIVATE : MS_SLAVE, NULL);
}

Test(diff, cli_ignore_ids_reports_each_kind_of_difference)
{
	static const struct {
		enum variant v;
		int status;
		const char *grep; /* a line the text must have */
	} cases[] = {
		{ V_SAME, 0, NULL },
		{ V_OPTION, 1, "^    options: size=1024k -> size=2048k$" },
		{ V_MISSING, 1, "^- [0-9]* .*/orig/t/sub tmpfs sub$" },
		{ V_EXTRA, 1, "^+ [0-9]* .*/v3/t/extra tmpfs extra$" },
		{ V_PEER_SPLIT, 1, "^    peer_group: shared:" },
		{ V_SLAVE_PRIVATE, 1, "^    propagation: master:[0-9]* -> private$" },
	};
	char cli[4200], cmd[9000], dir[256];

	ms_private_ns(BASE);
	cli_path(cli, sizeof(cli));
	build_tree(BASE "/orig", V_SAME);
	snprintf(cmd, sizeof(cmd), "%s save --under " BASE "/orig/t " BASE "/orig.bin", cli);
	cr_assert_eq(run(cmd), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(dir, sizeof(dir), BASE "/v%zu", i);
		build_tree(dir, cases[i].v);
		snprintf(cmd, sizeof(cmd), "%s save --under %s/t %s.bin", cli, dir, dir);
		cr_assert_eq(run(cmd), 0);
		snprintf(cmd, sizeof(cmd),
			 "%s diff --ignore-ids --old-prefix " BASE "/orig --new-prefix %s " BASE
			 "/orig.bin %s.bin > %s.txt",
			 cli, dir, dir, dir);
		cr_assert_eq(run(cmd), cases[i].status, "case %zu: %s", i, cmd);
		if (cases[i].grep) {
			snprintf(cmd, sizeof(cmd), "grep -q '%s' %s.txt || { cat %s.txt; false; }",
				 cases[i].grep, dir, dir);
			cr_assert_eq(run(cmd), 0, "case %zu: no line '%s'", i, cases[i].grep);
		}
	}
}

/*
 * Text from a newer kernel: a per-mount option this build does not know
 * ("newflag") is kept as the line's text (mnt_opts_text), the known ones
 * set the same attributes. A table that gained only that option differs
 * from the one without it, for mntsnap_diff() and for mntsnap diff of the
 * saved tables; the same options in another order do not.
 */
static struct mntsnap_snapshot *parse_text(const char *path, const char *text)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .mountinfo_path = path, .error = &err);
	int r;

	ms_write_text(path, text);
	r = mntsnap_capture(&o, &s);
	cr_assert_eq(r, 0, "%s: %s (%s)", path, strerror(-r), err.msg);
	return s;
}

Test(diff, unknown_per_mount_option_is_a_difference)
{
	static const char base[] = "22 1 259:3 / / rw,nosuid,noatime - ext4 /dev/vda rw\n"
				   "23 22 0:5 / /proc rw,relatime - proc proc rw\n";
	static const char more[] = "22 1 259:3 / / rw,nosuid,noatime,newflag - ext4 /dev/vda rw\n"
				   "23 22 0:5 / /proc rw,relatime - proc proc rw\n";
	static const char moved[] = "22 1 259:3 / / rw,noatime,nosuid - ext4 /dev/vda rw\n"
				    "23 22 0:5 / /proc rw,relatime - proc proc rw\n";
	static const char other[] = "22 1 259:3 / / rw,nosuid,noatime,newflag2 - ext4 /dev/vda rw\n"
				    "23 22 0:5 / /proc rw,relatime - proc proc rw\n";
	struct mntsnap_snapshot *a, *b, *c, *o;
	struct mntsnap_diff_entry e;
	struct mntsnap_diff *d;
	char cli[4200], cmd[9000];

	ms_private_ns(BASE);
	a = parse_text(BASE "/a.txt", base);
	b = parse_text(BASE "/b.txt", more);
	c = parse_text(BASE "/c.txt", moved);
	o = parse_text(BASE "/o.txt", other);
	for (int flags = 0; flags <= MNTSNAP_DIFF_IGNORE_IDS; flags += MNTSNAP_DIFF_IGNORE_IDS) {
		d = diff(a, b, (uint32_t)flags, NULL, NULL);
		cr_assert_eq(mntsnap_diff_count(d), 1, "flags %d: count %zu", flags,
			     mntsnap_diff_count(d));
		e = find(d, a, b, "/");
		cr_assert_eq(e.kind, MNTSNAP_DIFF_CHANGED);
		cr_assert_eq(e.changed, MNTSNAP_CHANGE_ATTR, "0x%x", e.changed);
		mntsnap_diff_free(d);
		d = diff(b, a, (uint32_t)flags, NULL, NULL);
		cr_assert_eq(mntsnap_diff_changed(d), 1, "and back");
		mntsnap_diff_free(d);
		d = diff(b, o, (uint32_t)flags, NULL, NULL);
		cr_assert_eq(mntsnap_diff_changed(d), 1, "one unknown option for another");
		mntsnap_diff_free(d);
		d = diff(a, c, (uint32_t)flags, NULL, NULL);
		cr_assert_eq(mntsnap_diff_count(d), 0, "the same options in another order");
		mntsnap_diff_free(d);
	}
	cr_assert_eq(mntsnap_snapshot_save(a, BASE "/a.bin"), 0);
	cr_assert_eq(mntsnap_snapshot_save(b, BASE "/b.bin"), 0);
	cli_path(cli, sizeof(cli));
	snprintf(cmd, sizeof(cmd), "%s diff " BASE "/a.bin " BASE "/b.bin >/dev/null", cli);
	cr_assert_eq(run(cmd), 1, "saved tables: different, exit 1");
	snprintf(cmd, sizeof(cmd), "%s diff " BASE "/a.bin " BASE "/b.bin | grep -q newflag", cli);
	cr_assert_eq(run(cmd), 0, "the text diff shows the option");
	snprintf(cmd, sizeof(cmd), "%s diff -J " BASE "/a.bin " BASE "/b.bin | grep -q newflag", cli);
	cr_assert_eq(run(cmd), 0, "so does the JSON diff");
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
	mntsnap_snapshot_free(c);
	mntsnap_snapshot_free(o);
}

/*
 * Super options kept as written ("rw,": an empty last option after the
 * flags, sb_flags and options as for "rw"): a table whose line gained the
 * comma differs from the one without it in its options, for
 * mntsnap_diff() and for mntsnap diff of the saved tables, which shows
 * both sides as FS-OPTIONS does.
 */
Test(diff, super_options_text_is_a_difference)
{
	static const char base[] = "22 1 259:3 / / rw - ext4 /dev/vda rw\n"
				   "23 22 0:5 / /proc rw,relatime - proc proc rw\n";
	static const char comma[] = "22 1 259:3 / / rw - ext4 /dev/vda rw,\n"
				    "23 22 0:5 / /proc rw,relatime - proc proc rw\n";
	struct mntsnap_snapshot *a, *b;
	struct mntsnap_diff_entry e;
	struct mntsnap_diff *d;
	char cli[4200], cmd[9000];

	ms_private_ns(BASE);
	a = parse_text(BASE "/a.txt", base);
	b = parse_text(BASE "/b.txt", comma);
	for (int flags = 0; flags <= MNTSNAP_DIFF_IGNORE_IDS; flags += MNTSNAP_DIFF_IGNORE_IDS) {
		d = diff(a, b, (uint32_t)flags, NULL, NULL);
		cr_assert_eq(mntsnap_diff_count(d), 1, "flags %d: count %zu", flags,
			     mntsnap_diff_count(d));
		e = find(d, a, b, "/");
		cr_assert_eq(e.kind, MNTSNAP_DIFF_CHANGED);
		cr_assert_eq(e.changed, MNTSNAP_CHANGE_OPTIONS, "0x%x", e.changed);
		mntsnap_diff_free(d);
		d = diff(b, b, (uint32_t)flags, NULL, NULL);
		cr_assert_eq(mntsnap_diff_count(d), 0, "the same text");
		mntsnap_diff_free(d);
	}
	cr_assert_eq(mntsnap_snapshot_save(a, BASE "/a.bin"), 0);
	cr_assert_eq(mntsnap_snapshot_save(b, BASE "/b.bin"), 0);
	cli_path(cli, sizeof(cli));
	snprintf(cmd, sizeof(cmd), "%s diff " BASE "/a.bin " BASE "/b.bin >/dev/null", cli);
	cr_assert_eq(run(cmd), 1, "saved tables: different, exit 1");
	snprintf(cmd, sizeof(cmd), "%s diff " BASE "/a.bin " BASE "/b.bin | grep -q 'rw -> rw,'",
		 cli);
	cr_assert_eq(run(cmd), 0, "the text diff shows both sides");
	mntsnap_snapshot_free(a);
	mntsnap_snapshot_free(b);
}
