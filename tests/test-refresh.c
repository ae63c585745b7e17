// SPDX-License-Identifier: MIT
/*
 * Consistency detection, retries, STRICT mode, mntsnap_refresh(), and a
 * 20 s stress run: captures in a loop while other processes mount and
 * unmount in the same private namespace.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "snapshot.h"
#include "sys.h"
#include "sys-seam.h"

#define BASE "/tmp/mntsnap-refresh"

static void mnt(const char *src, const char *dst, const char *type, unsigned long fl,
		const char *data)
{
	if (!(fl & (MS_REMOUNT | MS_SHARED | MS_SLAVE | MS_PRIVATE | MS_UNBINDABLE)))
		ms_mkdir_p(dst);
	cr_assert_eq(mount(src, dst, type, fl, data), 0, "mount %s: %s", dst, strerror(errno));
}

/* ---- a seam that changes the table at chosen moments ---------------------- */

enum act { ACT_NONE, ACT_MOUNT_EVERY_LIST, ACT_MOUNT_ONCE, ACT_SHARE_AFTER_FIRST,
	   ACT_VANISH_ONCE, ACT_TOGGLE_SHARED };

struct race {
	enum act act;
	int lists, stats, mounts;
	bool done;
	uint64_t target; /* ACT_SHARE_AFTER_FIRST: the mount to make shared */
};

static void race_mount(struct race *r)
{
	char p[128];

	snprintf(p, sizeof(p), BASE "/race/%d", r->mounts++);
	ms_mkdir_p(p);
	mount("race", p, "tmpfs", 0, NULL);
}

static long race_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids, size_t nr,
			   unsigned flags)
{
	struct race *r = ctx;
	long n = mntsnap__sys_listmount(NULL, req, ids, nr, flags);

	r->lists++;
	/* only after a listing's first page: later pages must run dry */
	if (req->param == 0 &&
	    (r->act == ACT_MOUNT_EVERY_LIST || (r->act == ACT_MOUNT_ONCE && !r->done))) {
		/* after the listing: the capture's statmounts miss it */
		race_mount(r);
		r->done = true;
	}
	return n;
}

static long race_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
			   size_t size, unsigned flags)
{
	struct race *r = ctx;

	long n;

	r->stats++;
	if (r->act == ACT_VANISH_ONCE && !r->done && r->stats == 3) {
		r->done = true;
		return -ENOENT;
	}
	n = mntsnap__sys_statmount(NULL, req, buf, size, flags);
	/* right after the target was read: change its propagation, which
	 * bumps no event counter and adds no mount */
	if (r->act == ACT_SHARE_AFTER_FIRST && req->mnt_id == r->target && !r->done) {
		mount(NULL, BASE "/p", NULL, MS_SHARED, NULL);
		r->done = true;
	}
	/* every capture sees another propagation: no two ever agree */
	if (r->act == ACT_TOGGLE_SHARED && req->mnt_id == r->target) {
		mount(NULL, BASE "/p", NULL, r->done ? MS_PRIVATE : MS_SHARED, NULL);
		r->done = !r->done;
	}
	return n;
}

static int race_capture(struct race *r, uint32_t flags, struct mntsnap_snapshot **s)
{
	struct mntsnap_sysops ops = { .listmount = race_listmount, .statmount = race_statmount,
				      .ctx = r };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
		     .flags = flags);

	return mntsnap__capture_with(&o, &ops, s);
}

Test(refresh, quiet_table_is_consistent_first_time)
{
	struct mntsnap_snapshot *s;
	struct race r = { ACT_NONE };

	ms_private_ns(BASE);
	cr_assert_eq(race_capture(&r, 0, &s), 0);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 1);
	mntsnap_snapshot_free(s);
	cr_assert_eq(mntsnap_snapshot_consistent(NULL), -1);
}

Test(refresh, race_detected_and_retried)
{
	struct mntsnap_snapshot *s;
	struct race r = { ACT_MOUNT_ONCE };

	ms_private_ns(BASE);
	cr_assert_eq(race_capture(&r, 0, &s), 0);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 2);
	cr_assert_eq(r.mounts, 1);
	/* the retry saw the mount made during the first attempt */
	{
		char *text = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);

		cr_assert(strstr(text, BASE "/race/0"), "%s", text);
		free(text);
	}
	mntsnap_snapshot_free(s);
}

Test(refresh, vanished_mount_means_retry)
{
	struct mntsnap_snapshot *s;
	struct race r = { ACT_VANISH_ONCE };

	ms_private_ns(BASE);
	cr_assert_eq(race_capture(&r, 0, &s), 0);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 2);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	mntsnap_snapshot_free(s);
}

Test(refresh, always_racing_gives_eagain_or_flagged)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	struct race r = { ACT_MOUNT_EVERY_LIST };
	struct mntsnap_sysops ops = { .listmount = race_listmount, .ctx = &r };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
		     .max_retries = 2, .error = &err);

	ms_private_ns(BASE);
	o.flags = MNTSNAP_CAPTURE_CONSISTENT;
	cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), -EAGAIN);
	cr_assert_null(s);
	cr_assert(strstr(err.msg, "kept changing"), "%s", err.msg);
	o.flags = 0;
	cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), 0);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 0);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 3);
	mntsnap_snapshot_free(s);
}

Test(refresh, propagation_change_needs_strict)
{
	struct mntsnap_snapshot *s, *now;
	struct mntsnap_diff *d;
	struct race r = { ACT_SHARE_AFTER_FIRST };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);

	ms_private_ns(BASE);
	mnt("p", BASE "/p", "tmpfs", 0, NULL);
	cr_assert_eq(mntsnap_stat_path(BASE "/p", 0, &s), 0);
	{
		struct mntsnap_mount m;

		mntsnap_snapshot_get(s, 0, &m);
		r.target = m.id;
	}
	mntsnap_snapshot_free(s);
	/* the detectors miss it: "consistent", yet stale (the documented gap) */
	cr_assert_eq(race_capture(&r, 0, &s), 0);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 1);
	cr_assert_eq(mntsnap_capture(&o, &now), 0);
	cr_assert_eq(mntsnap_diff(s, now, &d), 0);
	cr_assert_eq(mntsnap_diff_changed(d), 1, "the blind spot should show here");
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(s);
	mntsnap_snapshot_free(now);

	/* strict: the first pair disagrees, the next one agrees */
	cr_assert_eq(mount(NULL, BASE "/p", NULL, MS_PRIVATE, NULL), 0);
	r = (struct race){ .act = ACT_SHARE_AFTER_FIRST, .target = r.target };
	{
		int rc = race_capture(&r, MNTSNAP_CAPTURE_STRICT, &s);

		cr_assert_eq(rc, 0, "strict capture: %s", strerror(-rc));
	}
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 3);
	cr_assert_eq(mntsnap_capture(&o, &now), 0);
	cr_assert_eq(mntsnap_diff(s, now, &d), 0);
	cr_assert_eq(mntsnap_diff_count(d), 0);
	mntsnap_diff_free(d);
	mntsnap_snapshot_free(s);
	mntsnap_snapshot_free(now);
}

/* STRICT alone returns the last capture flagged; only CONSISTENT fails. */
Test(refresh, strict_never_agreeing_is_flagged_not_eagain)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	struct race r = { ACT_TOGGLE_SHARED };
	struct mntsnap_sysops ops = { .statmount = race_statmount, .ctx = &r };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
		     .max_retries = 2, .error = &err,
		     .flags = MNTSNAP_CAPTURE_STRICT);

	ms_private_ns(BASE);
	mnt("p", BASE "/p", "tmpfs", 0, NULL);
	cr_assert_eq(mntsnap_stat_path(BASE "/p", 0, &s), 0);
	{
		struct mntsnap_mount m;

		mntsnap_snapshot_get(s, 0, &m);
		r.target = m.id;
	}
	mntsnap_snapshot_free(s);
	s = NULL;
	cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), 0, "STRICT alone: %s", err.msg);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 0);
	cr_assert_eq(mntsnap_snapshot_attempts(s), 4, "max_retries + 1, + 1 for the pair");
	mntsnap_snapshot_free(s);
	s = NULL;
	o.flags |= MNTSNAP_CAPTURE_CONSISTENT;
	cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), -EAGAIN);
	cr_assert_null(s);
	cr_assert(strstr(err.msg, "no two successive captures agreed"), "%s", err.msg);
}

/* ---- refresh ----------------------------------------------------------------- */

static struct mntsnap_snapshot *cap(void)
{
	struct mntsnap_snapshot *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);

	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	return s;
}

static void assert_same(struct mntsnap_snapshot *a, struct mntsnap_snapshot *b)
{
	struct mntsnap_diff *d;
	char *x, *y;

	cr_assert_eq(mntsnap_diff(a, b, &d), 0);
	if (mntsnap_diff_count(d)) {
		char *t = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&t, &len);

		mntsnap_diff_render(d, MNTSNAP_DIFF_FORMAT_TEXT, f);
		fclose(f);
		cr_assert_fail("refreshed snapshot differs from a capture:\n%s", t);
	}
	mntsnap_diff_free(d);
	x = ms_render(a, MNTSNAP_FORMAT_MOUNTINFO);
	y = ms_render(b, MNTSNAP_FORMAT_MOUNTINFO);
	ms_assert_text_eq(x, y, "refreshed vs captured rendering");
	free(x);
	free(y);
}

Test(refresh, refresh_catches_each_change)
{
	struct mntsnap_snapshot *s, *now;
	int fds;

	ms_private_ns(BASE);
	mnt("gone", BASE "/gone", "tmpfs", 0, NULL);
	mnt("ro", BASE "/ro", "tmpfs", 0, NULL);
	mnt("sh", BASE "/sh", "tmpfs", 0, NULL);
	mnt("opt", BASE "/opt", "tmpfs", 0, "size=1m");
	mnt("mv", BASE "/mv", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/other/place");
	mnt("other", BASE "/other", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/other/place");
	for (int i = 0; i < 50; i++) {
		char p[128];

		snprintf(p, sizeof(p), BASE "/same/%d", i);
		mnt(BASE "/ro", p, NULL, MS_BIND, NULL);
	}
	s = cap();
	fds = ms_count_fds();
	cr_assert_eq(mntsnap_refresh(s), 0, "nothing changed yet");
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);

	cr_assert_eq(umount(BASE "/gone"), 0);
	mnt("new", BASE "/new", "tmpfs", 0, NULL);
	mnt(NULL, BASE "/ro", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	mnt(NULL, BASE "/sh", NULL, MS_SHARED, NULL);
	mnt(NULL, BASE "/opt", NULL, MS_REMOUNT, "size=2m");
	mnt(BASE "/mv", BASE "/other/place", NULL, MS_MOVE, NULL); /* new parent */
	/* removed 1, added 1, changed: ro, sh, opt, mv */
	cr_assert_eq(mntsnap_refresh(s), 6);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	now = cap();
	assert_same(s, now);
	mntsnap_snapshot_free(now);
	mntsnap_snapshot_free(s);
}

/*
 * Views taken before a refresh keep pointing at their strings: the refresh
 * appends enough new mount points that the string table has to grow
 * (under ASan, reading a freed table is a use-after-free; without it, the
 * freed memory is handed out again and overwritten below).
 */
Test(refresh, views_survive_refresh)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount v[3];
	char *want[3], *junk[512];
	size_t n, before, after;

	ms_private_ns(BASE);
	mnt("a", BASE "/a", "tmpfs", 0, NULL);
	s = cap();
	n = mntsnap_snapshot_count(s);
	cr_assert_geq(n, 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(mntsnap_snapshot_get(s, i ? n - i : 0, &v[i]), 0);
		want[i] = strdup(v[i].mount_point);
		cr_assert(want[i]);
	}
	before = mntsnap_snapshot_memory(s);
	for (int i = 0; i < 200; i++) {
		char p[256];

		snprintf(p, sizeof(p), BASE "/a/a-rather-long-directory-name-to-fill-strings-%03d", i);
		mnt("x", p, "tmpfs", 0, NULL);
	}
	cr_assert_eq(mntsnap_refresh(s), 200);
	/* take back whatever was freed, in pieces of every size */
	for (int i = 0; i < 512; i++) {
		junk[i] = malloc((size_t)16 * (i + 1));
		cr_assert(junk[i]);
		memset(junk[i], 'X', (size_t)16 * (i + 1));
	}
	for (int i = 0; i < 512; i++)
		free(junk[i]);
	for (int i = 0; i < 3; i++) {
		cr_assert_str_eq(v[i].mount_point, want[i], "view %d changed under a refresh", i);
		free(want[i]);
	}
	/* kept old tables add up to less than the live one */
	after = mntsnap_snapshot_memory(s);
	cr_log_info("memory %zu -> %zu bytes for +200 mounts", before, after);
	mntsnap_snapshot_free(s);
}

Test(refresh, refresh_needs_unique_ids)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO);
	MNTSNAP_OPTS(mntsnap_capture_opts, ro, .error = &err);

	ms_private_ns(BASE);
	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	cr_assert_eq(mntsnap_refresh_with(s, &ro), -EINVAL);
	cr_assert(strstr(err.msg, "unique"));
	cr_assert_eq(mntsnap_refresh(NULL), -EINVAL);
	mntsnap_snapshot_free(s);
}

/* ---- stress ------------------------------------------------------------------- */

static void churn(int who, int stop_fd)
{
	char p[128], q[128];

	snprintf(p, sizeof(p), BASE "/churn/%d/a", who);
	snprintf(q, sizeof(q), BASE "/churn/%d/b", who);
	ms_mkdir_p(p);
	ms_mkdir_p(q);
	for (unsigned long i = 0;; i++) {
		char c;

		if (read(stop_fd, &c, 1) >= 0 || errno != EAGAIN)
			_exit(0);
		mount("churn", p, "tmpfs", 0, NULL);
		if (i % 2)
			mount(p, q, NULL, MS_BIND, NULL);
		if (i % 3 == 0)
			mount(NULL, p, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
		if (i % 2)
			umount2(q, MNT_DETACH);
		umount2(p, MNT_DETACH);
	}
}

/* Every snapshot must be internally sound, consistent or not. */
static void check_sound(const struct mntsnap_snapshot *s)
{
	size_t n = mntsnap_snapshot_count(s), roots = 0;
	struct mntsnap_mount m;

	cr_assert_gt(n, 0);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(mntsnap_snapshot_get(s, i, &m), 0);
		cr_assert_eq(mntsnap_snapshot_find(s, m.id), (long)i, "duplicate id");
		if (m.parent_index == i)
			roots++;
		else
			cr_assert_eq(mntsnap_snapshot_find(s, m.parent_id), (long)m.parent_index);
	}
	if (mntsnap_snapshot_consistent(s) == 1)
		cr_assert_eq(roots, 1, "a consistent snapshot has one root");
}

Test(refresh, stress_20s_capture_while_mounting, .timeout = 100)
{
	int pipefd[2], fds, consistent = 0, raced = 0, eagain = 0, refreshed = 0;
	pid_t kids[2];
	time_t end;

	ms_private_ns(BASE);
	cr_assert_eq(pipe2(pipefd, O_CLOEXEC | O_NONBLOCK), 0);
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		cr_assert_geq(kids[k], 0);
		if (!kids[k]) {
			close(pipefd[1]);
			churn(k, pipefd[0]);
		}
	}
	close(pipefd[0]);
	fds = ms_count_fds();
	end = time(NULL) + 20;
	while (time(NULL) < end) {
		struct mntsnap_snapshot *s = NULL;
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT);
		int r = mntsnap_capture(&o, &s);

		cr_assert_eq(r, 0, "capture: %s", strerror(-r));
		check_sound(s);
		if (mntsnap_snapshot_consistent(s) == 1)
			consistent++;
		else
			raced++;
		cr_assert_leq(mntsnap_snapshot_attempts(s), 4);
		r = mntsnap_refresh(s);
		cr_assert_geq(r, 0, "refresh: %s", strerror(-r));
		check_sound(s);
		refreshed++;
		mntsnap_snapshot_free(s);
		/* CONSISTENT: a consistent snapshot or -EAGAIN, nothing else */
		o.flags = MNTSNAP_CAPTURE_CONSISTENT;
		r = mntsnap_capture(&o, &s);
		cr_assert(r == 0 || r == -EAGAIN, "capture: %s", strerror(-r));
		if (r == 0) {
			cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
			check_sound(s);
			mntsnap_snapshot_free(s);
		} else {
			eagain++;
		}
	}
	close(pipefd[1]); /* the children see EOF and leave */
	for (int k = 0; k < 2; k++) {
		int st;

		cr_assert_eq(waitpid(kids[k], &st, 0), kids[k]);
	}
	cr_assert_eq(ms_count_fds(), fds - 1, "fd leak"); /* - the pipe's write end */
	cr_log_info("stress: %d consistent, %d raced (flagged), %d EAGAIN, %d refreshes",
		    consistent, raced, eagain, refreshed);
	fprintf(stderr, "stress: %d consistent, %d raced (flagged), %d EAGAIN, %d refreshes\n",
		consistent, raced, eagain, refreshed);
	cr_assert_gt(consistent, 0);
}

Test(refresh, ids_only_sees_mounts_not_attributes)
{
	struct mntsnap_snapshot *s, *now;
	struct mntsnap_diff *d;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);

	ms_private_ns(BASE);
	mnt("a", BASE "/a", "tmpfs", 0, NULL);
	mnt("b", BASE "/b", "tmpfs", 0, NULL);
	s = cap();
	cr_assert_eq(umount(BASE "/a"), 0);
	mnt("c", BASE "/c", "tmpfs", 0, NULL);
	mnt(NULL, BASE "/b", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
	cr_assert_eq(mntsnap_refresh_with(s, &o), 2);
	now = cap();
	cr_assert_eq(mntsnap_diff(s, now, &d), 0);
	/* the documented blind spot: only the attribute change is left */
	cr_assert_eq(mntsnap_diff_count(d), 1);
	cr_assert_eq(mntsnap_diff_changed(d), 1);
	mntsnap_diff_free(d);
	cr_assert_eq(mntsnap_refresh(s), 1, "a checked refresh catches it");
	assert_same(s, now);
	mntsnap_snapshot_free(now);
	mntsnap_snapshot_free(s);
}

/* The ids-only merge walk: removals between kept mounts, additions after
 * them, and an unchanged table, each equal to a fresh capture. */
Test(refresh, ids_only_merge_walk_equals_capture)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);
	struct mntsnap_snapshot *s, *now;
	char p[128];

	ms_private_ns(BASE);
	for (int i = 0; i < 30; i++) {
		snprintf(p, sizeof(p), BASE "/w/%d", i);
		mnt("w", p, "tmpfs", 0, NULL);
	}
	s = cap();
	cr_assert_eq(mntsnap_refresh_with(s, &o), 0, "unchanged table");
	now = cap();
	assert_same(s, now);
	mntsnap_snapshot_free(now);
	for (int i = 0; i < 30; i += 3) {
		snprintf(p, sizeof(p), BASE "/w/%d", i);
		cr_assert_eq(umount(p), 0);
	}
	for (int i = 30; i < 35; i++) {
		snprintf(p, sizeof(p), BASE "/w/%d", i);
		mnt("w", p, "tmpfs", 0, NULL);
	}
	cr_assert_eq(mntsnap_refresh_with(s, &o), 10 + 5);
	now = cap();
	assert_same(s, now);
	cr_assert_eq(mntsnap_snapshot_count(s), mntsnap_snapshot_count(now));
	mntsnap_snapshot_free(now);
	mntsnap_snapshot_free(s);
}

/* Links, depths, tree order and indexes of s equal what a finish builds. */
static void assert_indexes_as_rebuilt(struct mntsnap_snapshot *s)
{
	uint32_t n = s->nrecs, *was = malloc(((size_t)n * 6 + 1) * sizeof(*was));
	bool had_by_id = s->by_id, had_by_old = s->by_old;

	cr_assert(was);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t *w = was + (size_t)i * 6;

		w[0] = s->recs[i].parent;
		w[1] = s->recs[i].first_child;
		w[2] = s->recs[i].next_sibling;
		w[3] = s->recs[i].depth;
		w[4] = s->tree[i];
		w[5] = s->by_old ? s->by_old[i] : MNTSNAP_NONE;
	}
	cr_assert_eq(mntsnap__snap_finish(s), 0);
	cr_assert_eq(had_by_id, s->by_id != NULL);
	cr_assert_eq(had_by_old, s->by_old != NULL);
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *w = was + (size_t)i * 6;

		cr_assert_eq(w[0], s->recs[i].parent, "parent of %u", i);
		cr_assert_eq(w[1], s->recs[i].first_child, "first child of %u", i);
		cr_assert_eq(w[2], s->recs[i].next_sibling, "next sibling of %u", i);
		cr_assert_eq(w[3], s->recs[i].depth, "depth of %u", i);
		cr_assert_eq(w[4], s->tree[i], "tree position %u", i);
		cr_assert_eq(w[5], s->by_old ? s->by_old[i] : MNTSNAP_NONE, "by_old %u", i);
	}
	free(was);
}

static void ids_only_step(struct mntsnap_snapshot *s, int changes)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);
	struct mntsnap_snapshot *now;

	cr_assert_eq(mntsnap_refresh_with(s, &o), changes);
	/* a quiet table, one short listmount call: one moment */
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	now = cap();
	assert_same(s, now);
	mntsnap_snapshot_free(now);
	assert_indexes_as_rebuilt(s);
}

/*
 * A few mounts added and removed at a time are indexed in place (no
 * rebuild): nested mounts added in one round, a leaf between kept ones,
 * a whole subtree detached, old ids handed out again below kept ones.
 * Each result equals a fresh capture and a full rebuild of its indexes.
 */
Test(refresh, ids_only_in_place_indexes_equal_rebuild)
{
	struct mntsnap_snapshot *s;

	ms_private_ns(BASE);
	mnt("a", BASE "/a", "tmpfs", 0, NULL);
	mnt("x", BASE "/a/x", "tmpfs", 0, NULL);
	mnt("y", BASE "/a/y", "tmpfs", 0, NULL);
	mnt("b", BASE "/b", "tmpfs", 0, NULL);
	mnt("c", BASE "/c", "tmpfs", 0, NULL);
	s = cap();
	mnt("n", BASE "/a/n", "tmpfs", 0, NULL);
	mnt("d", BASE "/a/n/deep", "tmpfs", 0, NULL);
	mnt("e", BASE "/b/e", "tmpfs", 0, NULL);
	ids_only_step(s, 3);
	cr_assert_eq(umount(BASE "/a/x"), 0);
	ids_only_step(s, 1);
	/* the old id just freed is the lowest free one: handed out again */
	mnt("f", BASE "/c/f", "tmpfs", 0, NULL);
	ids_only_step(s, 1);
	cr_assert_eq(umount2(BASE "/a", MNT_DETACH), 0); /* a, y, n, deep */
	ids_only_step(s, 4);
	mnt("g", BASE "/g", "tmpfs", 0, NULL);
	cr_assert_eq(umount(BASE "/b/e"), 0);
	ids_only_step(s, 2);
	ids_only_step(s, 0);
	/* more than a few at once: sorted in and rebuilt, the same result */
	for (int i = 0; i < 20; i++) {
		char p[128];

		snprintf(p, sizeof(p), BASE "/c/many/%d", i);
		mnt("m", p, "tmpfs", 0, NULL);
	}
	ids_only_step(s, 20);
	cr_assert_eq(umount2(BASE "/c", MNT_DETACH), 0); /* c, f, 20 below */
	ids_only_step(s, 22);
	mntsnap_snapshot_free(s);
}

/*
 * What consistent means without the POLLPRI detector: the ids came from
 * one short listmount call and every new mount's statmount found it. A
 * mount that appears between the first call and the one that ends the
 * walk, or a new mount gone before its statmount, is no one moment.
 */
Test(refresh, ids_only_consistent_only_for_one_listing)
{
	struct race r = { .act = ACT_MOUNT_ONCE };
	struct mntsnap_sysops ops = { .listmount = race_listmount, .statmount = race_statmount,
				      .ctx = &r };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .flags = MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);
	struct mntsnap_snapshot *s;

	ms_private_ns(BASE);
	mnt("a", BASE "/a", "tmpfs", 0, NULL);
	s = cap();
	/* mounted right after the first call: the second call lists it */
	cr_assert_eq(mntsnap__refresh_sys(s, &o, &ops), 1);
	cr_assert_eq(r.lists, 3, "first, the one that found it, the empty end");
	cr_assert_eq(mntsnap_snapshot_consistent(s), 0, "two calls are no one moment");
	r = (struct race){ .act = ACT_NONE };
	cr_assert_eq(mntsnap__refresh_sys(s, &o, &ops), 0);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 1);
	/* the third new mount's statmount fails with ENOENT, as if unmounted */
	mnt("b", BASE "/b", "tmpfs", 0, NULL);
	mnt("c", BASE "/c", "tmpfs", 0, NULL);
	mnt("d", BASE "/d", "tmpfs", 0, NULL);
	r = (struct race){ .act = ACT_VANISH_ONCE };
	cr_assert_eq(mntsnap__refresh_sys(s, &o, &ops), 2);
	cr_assert_eq(r.stats, 3);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 0, "a new mount vanished");
	mntsnap_snapshot_free(s);
}

/*
 * After every step of a history, a checked refresh equals a fresh capture
 * (field by field, as mntsnap_diff compares them, and rendered), and an
 * ids-only refresh has the same mounts (its documented contract: no
 * per-mount check). Steps of every kind but the documented blind spot (a
 * move under the same parent mount): an option from none
 * ("" -> size=1024k) and back to other values, binds, stacked mounts,
 * superblock and bind remounts, each propagation type, a move to another
 * parent, umount and a lazy umount of a subtree.
 */
enum rstep_op { R_MOUNT, R_BIND, R_FLAGS, R_MOVE, R_UMOUNT, R_LAZY };

Test(refresh, every_step_equals_a_capture)
{
	static const struct {
		enum rstep_op op;
		const char *a, *b, *data;
		unsigned long fl;
	} steps[] = {
		{ R_MOUNT, "none", BASE "/w", NULL, 0 },
		{ R_FLAGS, NULL, BASE "/w", "size=1m", MS_REMOUNT },
		{ R_FLAGS, NULL, BASE "/w", "size=2m", MS_REMOUNT },
		{ R_MOUNT, "in", BASE "/w/in", NULL, 0 },
		{ R_BIND, BASE "/w", BASE "/wb", NULL, 0 },
		{ R_FLAGS, NULL, BASE "/w", NULL, MS_REMOUNT | MS_RDONLY },
		{ R_FLAGS, NULL, BASE "/wb", NULL, MS_REMOUNT | MS_BIND | MS_NOSUID },
		{ R_FLAGS, NULL, BASE "/w", NULL, MS_SHARED },
		{ R_BIND, BASE "/w", BASE "/peer", NULL, 0 },
		{ R_FLAGS, NULL, BASE "/peer", NULL, MS_SLAVE },
		{ R_MOUNT, "stack", BASE "/wb", NULL, 0 },
		{ R_FLAGS, NULL, BASE "/w", NULL, MS_UNBINDABLE },
		{ R_FLAGS, NULL, BASE "/peer", NULL, MS_PRIVATE },
		{ R_MOUNT, "dst", BASE "/dst", NULL, 0 },
		{ R_MOVE, BASE "/peer", BASE "/dst/p", NULL, 0 },
		{ R_FLAGS, NULL, BASE "/w", NULL, MS_REMOUNT },
		{ R_UMOUNT, NULL, BASE "/wb", NULL, 0 },
		{ R_LAZY, NULL, BASE "/dst", NULL, 0 },
		{ R_FLAGS, NULL, BASE "/w", NULL, MS_PRIVATE },
		{ R_UMOUNT, NULL, BASE "/w/in", NULL, 0 },
	};
	MNTSNAP_OPTS(mntsnap_capture_opts, ids, .flags = MNTSNAP_CAPTURE_REFRESH_IDS_ONLY);
	struct mntsnap_snapshot *s, *t, *now;
	struct mntsnap_diff *d;

	ms_private_ns(BASE);
	s = cap();
	t = cap();
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		switch (steps[i].op) {
		case R_MOUNT:
			mnt(steps[i].a, steps[i].b, "tmpfs", 0, steps[i].data);
			break;
		case R_BIND:
			mnt(steps[i].a, steps[i].b, NULL, MS_BIND, NULL);
			break;
		case R_FLAGS:
			mnt(NULL, steps[i].b, NULL, steps[i].fl, steps[i].data);
			break;
		case R_MOVE:
			ms_mkdir_p(steps[i].b);
			mnt(steps[i].a, steps[i].b, NULL, MS_MOVE, NULL);
			break;
		case R_UMOUNT:
			cr_assert_eq(umount(steps[i].b), 0, "step %zu", i);
			break;
		case R_LAZY:
			cr_assert_eq(umount2(steps[i].b, MNT_DETACH), 0, "step %zu", i);
			break;
		}
		cr_assert_geq(mntsnap_refresh(s), 0, "step %zu", i);
		cr_assert_geq(mntsnap_refresh_with(t, &ids), 0, "step %zu", i);
		now = cap();
		assert_same(s, now);
		cr_assert_eq(mntsnap_diff(t, now, &d), 0);
		cr_assert_eq(mntsnap_diff_added(d) + mntsnap_diff_removed(d), 0,
			     "step %zu: ids-only has the same mounts", i);
		mntsnap_diff_free(d);
		mntsnap_snapshot_free(now);
	}
	mntsnap_snapshot_free(s);
	mntsnap_snapshot_free(t);
}

/*
 * A mount moved to another parent takes the mount points of every mount
 * below it along, though nothing the cheap check compares changes for
 * them: a refresh kept their old paths (found by tests/history-eq.py). It
 * fetches them again and counts each as changed; a mount under a mount
 * stacked at the old place only shares the path prefix and is unchanged.
 */
Test(refresh, move_takes_the_subtree_along)
{
	struct mntsnap_snapshot *s, *now;
	int fd;

	ms_private_ns(BASE);
	mnt("top", BASE "/x/m", "tmpfs", 0, NULL);
	mnt("sub", BASE "/x/m/sub", "tmpfs", 0, NULL);
	mnt("src", BASE "/src", "tmpfs", 0, NULL);
	ms_mkdir_p(BASE "/src/d");
	fd = open(BASE "/src/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	fd = open(BASE "/x/m/sub/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	mnt(BASE "/src/d", BASE "/x/m/dir", NULL, MS_BIND, NULL);
	mnt(BASE "/src/f", BASE "/x/m/sub/f", NULL, MS_BIND, NULL);
	mnt("dst", BASE "/y", "tmpfs", 0, NULL);
	s = cap();
	ms_mkdir_p(BASE "/y/n");
	mnt(BASE "/x/m", BASE "/y/n", NULL, MS_MOVE, NULL);
	/* a new mount where the moved one was, with one below it */
	mnt("again", BASE "/x/m", "tmpfs", 0, NULL);
	mnt("below", BASE "/x/m/sub", "tmpfs", 0, NULL);
	/* moved: top; along: sub, dir, f; added: again, below */
	cr_assert_eq(mntsnap_refresh(s), 6);
	now = cap();
	assert_same(s, now);
	mntsnap_snapshot_free(now);
	/* and the other way: the prefix now names the new mounts too */
	mnt(BASE "/y/n", BASE "/x/m/sub", NULL, MS_MOVE, NULL);
	cr_assert_eq(mntsnap_refresh(s), 4);
	now = cap();
	assert_same(s, now);
	mntsnap_snapshot_free(now);
	mntsnap_snapshot_free(s);
}
