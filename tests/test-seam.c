// SPDX-License-Identifier: MIT
/*
 * Kernel error paths through the syscall seam (lib/sys.h): a table of
 * wrappers around the real statmount/listmount that inject EOVERFLOW,
 * vanishing mounts, ENOSYS, EPERM, an older kernel's smaller masks, short
 * listmount pages and outright lies. Each must give the documented result:
 * the same snapshot, a clean error, or a dropped field; never a crash
 * (this suite also runs under ASan/UBSan) and never a leaked fd.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backends.h"
#include "kernel-features.h"
#include "sys-seam.h"
#include "helpers.h"
#include "mntsnap.h"
#include "sys.h"

#define BASE "/tmp/mntsnap-seam"

/* The wrappers call the real syscalls underneath. */
static void need_kernel(void)
{
	if (!mntsnap_have_statmount())
		cr_skip_test("no statmount/listmount here (Linux < 6.8 or blocked)");
}

TestSuite(seam, .init = need_kernel);


enum lie {
	LIE_NONE,
	LIE_SIZE_BIG,    /* size > bufsize */
	LIE_SIZE_SMALL,  /* size < sizeof(struct mntsnap_k_statmount) */
	LIE_STR_OFF,     /* string offsets past the end */
	LIE_NO_NUL,      /* string area not NUL-terminated */
	LIE_LIST_COUNTS, /* opt_num / uidmap_num far beyond the strings */
	LIE_OTHER_ID,    /* a record for another mount */
	LIE_CYCLE,       /* the root claims its child as parent */
	LIE_LIST_OVER,   /* listmount returns more than asked */
	LIE_LIST_REPEAT, /* listmount ignores param: same page forever */
	LIE_LIST_ZERO,   /* listmount lists nothing */
};

struct fake {
	int list_err, stat_err;
	uint64_t vanish_id;
	size_t min_bufsize;     /* EOVERFLOW below this */
	size_t max_bufsize;     /* largest bufsize seen */
	unsigned eoverflows;
	uint64_t clear_mask;    /* bits an older kernel does not fill */
	size_t list_k;          /* at most k ids per listmount call */
	unsigned list_calls;
	unsigned list_flags;
	uint64_t cycle_root, cycle_child;
	enum lie lie;
	const uint64_t *vanish_set; /* more vanishing ids (sorted) */
	size_t nvanish;
	uint64_t fail_id;           /* statmount of this id fails with fail_err */
	int fail_err;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static long f_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
			size_t bufsize, unsigned flags)
{
	struct fake *f = ctx;
	size_t strsize;
	long r;

	if (f->stat_err)
		return f->stat_err;
	if (req->mnt_id == f->vanish_id ||
	    (f->nvanish && bsearch(&req->mnt_id, f->vanish_set, f->nvanish,
				   sizeof(*f->vanish_set), cmp_u64)))
		return -ENOENT;
	if (f->fail_id && req->mnt_id == f->fail_id)
		return f->fail_err;
	/* several statmount threads may call in at once */
	for (size_t seen = __atomic_load_n(&f->max_bufsize, __ATOMIC_RELAXED);
	     bufsize > seen &&
	     !__atomic_compare_exchange_n(&f->max_bufsize, &seen, bufsize, false,
					  __ATOMIC_RELAXED, __ATOMIC_RELAXED);)
		;
	if (bufsize < f->min_bufsize) {
		__atomic_add_fetch(&f->eoverflows, 1, __ATOMIC_RELAXED);
		return -EOVERFLOW;
	}
	r = mntsnap__sys_statmount(NULL, req, buf, bufsize, flags);
	if (r < 0)
		return r;
	buf->mask &= ~f->clear_mask;
	strsize = buf->size - sizeof(*buf);
	switch (f->lie) {
	case LIE_SIZE_BIG:
		buf->size = (uint32_t)bufsize + 64;
		break;
	case LIE_SIZE_SMALL:
		buf->size = 100;
		break;
	case LIE_STR_OFF:
		buf->fs_type = 0xfffffff0U;
		buf->mnt_point = (uint32_t)strsize; /* one past the end */
		buf->mnt_root = (uint32_t)strsize + 1000;
		break;
	case LIE_NO_NUL:
		if (buf->size > sizeof(*buf))
			((char *)buf)[buf->size - 1] = 'x';
		break;
	case LIE_LIST_COUNTS:
		buf->mask |= MNTSNAP_K_STATMOUNT_OPT_ARRAY | MNTSNAP_K_STATMOUNT_MNT_UIDMAP | MNTSNAP_K_STATMOUNT_OPT_SEC_ARRAY;
		buf->opt_num = 0xffffffffU;
		buf->opt_array = 0;
		buf->mnt_uidmap_num = 1000;
		buf->mnt_uidmap = (uint32_t)strsize - 1;
		buf->opt_sec_num = 1;
		buf->opt_sec_array = 0x7fffffffU;
		break;
	case LIE_OTHER_ID:
		buf->mnt_id ^= 1;
		break;
	case LIE_CYCLE:
		if (buf->mnt_id == f->cycle_root)
			buf->mnt_parent_id = f->cycle_child;
		break;
	default:
		break;
	}
	return r;
}

static long f_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids, size_t nr,
			unsigned flags)
{
	struct fake *f = ctx;
	struct mntsnap_k_mnt_id_req r2 = *req;
	long r;

	f->list_calls++;
	f->list_flags |= flags;
	if (f->list_err)
		return f->list_err;
	if (f->lie == LIE_LIST_ZERO)
		return 0;
	if (f->lie == LIE_LIST_REPEAT)
		r2.param = 0;
	if (f->list_k && nr > f->list_k)
		nr = f->list_k;
	r = mntsnap__sys_listmount(NULL, &r2, ids, nr, flags);
	if (r > 0 && f->lie == LIE_LIST_OVER)
		return r + 5;
	if (f->list_calls > 100000)
		return -ELOOP; /* the library paged forever: fail the test, not hang */
	return r;
}

static struct mntsnap_sysops fake_ops(struct fake *f)
{
	return (struct mntsnap_sysops){ .statmount = f_statmount, .listmount = f_listmount,
					.ctx = f };
}

static int cap(struct fake *f, int backend, uint32_t mask, uint32_t flags,
	       struct mntsnap_snapshot **ret)
{
	struct mntsnap_sysops ops = fake_ops(f);
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = backend, .mask = mask, .flags = flags);

	return mntsnap__capture_with(&o, &ops, ret);
}

static struct mntsnap_snapshot *cap_ok(struct fake *f, uint32_t flags)
{
	struct mntsnap_snapshot *s = NULL;
	int r = cap(f, MNTSNAP_BACKEND_STATMOUNT, 0, flags, &s);

	cr_assert_eq(r, 0, "seam capture: %s", strerror(-r));
	return s;
}

static struct mntsnap_snapshot *real_capture(uint32_t flags)
{
	struct mntsnap_snapshot *s = NULL;
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
		     .flags = flags);

	cr_assert_eq(mntsnap_capture(&o, &s), 0);
	return s;
}

static void assert_same(const struct mntsnap_snapshot *a, const struct mntsnap_snapshot *b,
			const char *what)
{
	char *ta = ms_render(a, MNTSNAP_FORMAT_MOUNTINFO);
	char *tb = ms_render(b, MNTSNAP_FORMAT_MOUNTINFO);

	ms_assert_text_eq(ta, tb, what);
	free(ta);
	free(tb);
}

/* A private table with a few mounts, so counts and ids are stable. */
static void setup(void)
{
	ms_private_ns(BASE);
	for (int i = 0; i < 5; i++) {
		char p[128];

		snprintf(p, sizeof(p), BASE "/m%d", i);
		ms_mkdir_p(p);
		cr_assert_eq(mount("seam", p, "tmpfs", 0, "mode=700"), 0);
	}
}

/* ---- EOVERFLOW ------------------------------------------------------------- */

LTest(seam, eoverflow_growth)
{
	struct mntsnap_snapshot *real, *s;
	struct fake f = { .min_bufsize = 256 * 1024 };

	setup();
	real = real_capture(0);
	s = cap_ok(&f, 0);
	cr_assert_gt(f.eoverflows, 0);
	cr_assert_geq(f.max_bufsize, f.min_bufsize, "buffer grew to %zu", f.max_bufsize);
	assert_same(s, real, "capture after EOVERFLOW growth");
	mntsnap_snapshot_free(s);
	mntsnap_snapshot_free(real);
}

LTest(seam, eoverflow_single_mount)
{
	struct mntsnap_snapshot *one = NULL;
	struct fake f = { .min_bufsize = 100 * 1000 };
	struct mntsnap_sysops ops = fake_ops(&f);
	struct mntsnap_snapshot *real;
	struct mntsnap_mount m;

	setup();
	real = real_capture(0);
	mntsnap_snapshot_get(real, 0, &m);
	cr_assert_eq(mntsnap__stat_id_sys(&ops, NULL, m.id, 0, &one), 0);
	cr_assert_gt(f.eoverflows, 0);
	cr_assert_eq(mntsnap_snapshot_count(one), 1);
	mntsnap_snapshot_get(one, 0, &m);
	cr_assert_eq(mntsnap_snapshot_find(real, m.id), 0);
	mntsnap_snapshot_free(one);
	mntsnap_snapshot_free(real);
}

/* A kernel that wants more than any sane buffer: a clean error, no hang. */
LTest(seam, eoverflow_forever)
{
	struct mntsnap_snapshot *s = (void *)0x1;
	struct fake f = { .min_bufsize = SIZE_MAX };
	int r;

	setup();
	r = cap(&f, MNTSNAP_BACKEND_STATMOUNT, 0, 0, &s);
	cr_assert_eq(r, -E2BIG, "got %d", r);
	cr_assert_eq(s, (void *)0x1);
}

/* ---- a mount vanishing between listmount and statmount ---------------------- */

LTest(seam, enoent_vanish)
{
	struct mntsnap_snapshot *real, *s;
	struct mntsnap_mount m, v;
	size_t n;

	setup();
	real = real_capture(0);
	n = mntsnap_snapshot_count(real);
	/* vanish a mount that has children and one that has none */
	for (int pass = 0; pass < 2; pass++) {
		struct fake f = {0};
		bool found = false;

		for (size_t i = 0; i < n && !found; i++) {
			mntsnap_snapshot_get(real, i, &v);
			found = (mntsnap_snapshot_first_child(real, i) >= 0) == (pass == 0) &&
				v.parent_index != i;
		}
		cr_assert(found);
		f.vanish_id = v.id;
		s = cap_ok(&f, 0);
		cr_assert_eq(mntsnap_snapshot_count(s), n - 1);
		cr_assert_eq(mntsnap_snapshot_find(s, v.id), -ENOENT);
		for (size_t i = 0; i < n; i++) {
			mntsnap_snapshot_get(real, i, &m);
			if (m.id != v.id)
				cr_assert_geq(mntsnap_snapshot_find(s, m.id), 0);
		}
		/* every record still reachable in tree order */
		for (size_t k = 0; k < n - 1; k++)
			cr_assert_geq(mntsnap_snapshot_tree_index(s, k), 0);
		mntsnap_snapshot_free(s);
	}
	mntsnap_snapshot_free(real);
}

/* The same faults with several statmount threads on a bigger table. */
LTest(seam, threads_vanish_growth_and_failure, .timeout = 120)
{
	struct mntsnap_snapshot *real, *s = NULL;
	uint64_t gone[7];
	size_t n;

	setup();
	for (int i = 0; i < 1200; i++) {
		char p[128];

		snprintf(p, sizeof(p), BASE "/b%d", i);
		ms_mkdir_p(p);
		cr_assert_eq(mount(BASE "/m0", p, NULL, MS_BIND, NULL), 0);
	}
	real = real_capture(0);
	n = mntsnap_snapshot_count(real);
	/* spread over the caller's chunks and the helpers' */
	for (size_t i = 0; i < 7; i++) {
		struct mntsnap_mount m;

		mntsnap_snapshot_get(real, 30 + i * (n - 40) / 6, &m);
		gone[i] = m.id;
	}
	qsort(gone, 7, sizeof(gone[0]), cmp_u64);
	for (unsigned threads = 2; threads <= 5; threads += 3) {
		struct fake f = { .vanish_set = gone, .nvanish = 7, .min_bufsize = 64 * 1024 };
		struct mntsnap_sysops ops = fake_ops(&f);
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,
			     .threads = threads);

		cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), 0);
		cr_assert_eq(mntsnap_snapshot_count(s), n - 7);
		cr_assert_gt(f.eoverflows, 0);
		for (size_t i = 0; i < n; i++) {
			struct mntsnap_mount m;
			bool vanished;

			mntsnap_snapshot_get(real, i, &m);
			vanished = bsearch(&m.id, gone, 7, sizeof(gone[0]), cmp_u64);
			cr_assert_eq(mntsnap_snapshot_find(s, m.id) < 0, vanished);
		}
		mntsnap_snapshot_free(s);

		/* one hard error anywhere fails the whole capture, cleanly */
		for (size_t at = 0; at < n; at += n / 3) {
			struct fake g = { .fail_err = -EIO };
			struct mntsnap_sysops gops = fake_ops(&g);
			struct mntsnap_mount m;

			mntsnap_snapshot_get(real, at, &m);
			g.fail_id = m.id;
			s = (void *)0x1;
			cr_assert_eq(mntsnap__capture_with(&o, &gops, &s), -EIO);
			cr_assert_eq(s, (void *)0x1);
		}
	}
	mntsnap_snapshot_free(real);
}

/* ---- unavailable syscalls ---------------------------------------------------- */

static void assert_fails_with(int err)
{
	struct fake fl = { .list_err = err }, fs = { .stat_err = err };
	struct mntsnap_snapshot *s = (void *)0x1;
	struct mntsnap_sysops ops = fake_ops(&fs);
	struct mntsnap_error e = {0};
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,  .error = &e);

	cr_assert_eq(cap(&fl, MNTSNAP_BACKEND_STATMOUNT, 0, 0, &s), err);
	cr_assert_eq(s, (void *)0x1);
	cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), err);
	cr_assert_eq(s, (void *)0x1);
	cr_assert_eq(e.err, err);
	cr_assert_neq(e.msg[0], '\0');
	cr_assert_eq(mntsnap__stat_id_sys(&ops, NULL, 0x80000001ULL + 5, 0, &s), err);
	cr_assert_eq(s, (void *)0x1);
}

LTest(seam, enosys)
{
	setup();
	assert_fails_with(-ENOSYS);
}

LTest(seam, eperm)
{
	setup();
	assert_fails_with(-EPERM);
}

/* AUTO falls back to /proc/self/mountinfo when statmount is unavailable. */
LTest(seam, auto_falls_back_to_mountinfo)
{
	static const int errs[] = { -ENOSYS, -EPERM, -EACCES };

	setup();
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct fake f = { .list_err = errs[i] };
		struct mntsnap_snapshot *s = NULL;
		char *want, *got;

		cr_assert_eq(cap(&f, MNTSNAP_BACKEND_AUTO, 0, 0, &s), 0);
		cr_assert_eq(mntsnap_snapshot_backend(s), MNTSNAP_BACKEND_MOUNTINFO);
		want = ms_read_file("/proc/self/mountinfo", NULL);
		got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
		ms_assert_text_eq(got, want, "mountinfo fallback");
		free(got);
		free(want);
		mntsnap_snapshot_free(s);
	}
}

/* ---- older kernels ------------------------------------------------------------ */

/* The super options a kernel without MNT_OPTS lets us print: flags only. */
static char *sb_flags_only(const char *super)
{
	static const char *const keep[] = { "ro", "rw", "sync", "dirsync", "lazytime" };
	char *out = calloc(1, strlen(super) + 1), *dup = strdup(super), *save = NULL;

	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bool ok = false;

		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			ok |= !strcmp(t, keep[i]);
		if (!ok)
			break;
		if (*out)
			strcat(out, ",");
		strcat(out, t);
	}
	free(dup);
	return out;
}

/*
 * Like a 6.8 kernel: no MNT_NS_ID, MNT_OPTS, FS_SUBTYPE, SB_SOURCE, option
 * arrays, id maps. Expected: masks lack them, and each line is the
 * kernel's with source "none" and super options reduced to the flags.
 */
LTest(seam, older_kernel_fewer_mask_bits)
{
	struct fake f = { .clear_mask = ~(uint64_t)0x3f };
	struct mntsnap_snapshot *s;
	char *got, *want, *gl, *wl, *gs = NULL, *ws = NULL;

	setup();
	s = cap_ok(&f, 0);
	want = ms_read_file("/proc/self/mountinfo", NULL);
	cr_assert_eq(mntsnap_snapshot_ns_id(s), 0);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		struct mntsnap_mount m;

		mntsnap_snapshot_get(s, i, &m);
		cr_assert_eq(m.mask & (MNTSNAP_F_NS_ID | MNTSNAP_F_OPTS | MNTSNAP_F_SOURCE |
				       MNTSNAP_F_FS_SUBTYPE),
			     0, "mask %#x", m.mask);
		cr_assert(m.mask & MNTSNAP_F_MOUNT_POINT);
		cr_assert_eq(m.ns_id, 0);
		cr_assert_str_eq(m.source, "");
		cr_assert_str_eq(m.options, "");
	}
	got = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	gl = strtok_r(got, "\n", &gs);
	wl = strtok_r(want, "\n", &ws);
	for (; gl && wl; gl = strtok_r(NULL, "\n", &gs), wl = strtok_r(NULL, "\n", &ws)) {
		char *gsep = strstr(gl, " - "), *wsep = strstr(wl, " - ");
		char wtype[256], wsrc[4096], wsuper[4096], exp[8192];
		char *flags;

		cr_assert(gsep && wsep);
		cr_assert_eq(gsep - gl, wsep - wl, "\n got: %s\nwant: %s", gl, wl);
		cr_assert_eq(strncmp(gl, wl, (size_t)(gsep - gl)), 0, "\n got: %s\nwant: %s", gl,
			     wl);
		cr_assert_eq(sscanf(wsep, " - %255s %4095s %4095s", wtype, wsrc, wsuper), 3);
		flags = sb_flags_only(wsuper);
		snprintf(exp, sizeof(exp), " - %s none %s", wtype, flags);
		cr_assert_str_eq(gsep, exp);
		free(flags);
	}
	cr_assert(!gl && !wl, "line counts differ");
	free(got);
	free(want);
	/* the snapshot still has its tree and indexes */
	for (size_t k = 0; k < mntsnap_snapshot_count(s); k++)
		cr_assert_geq(mntsnap_snapshot_tree_index(s, k), 0);
	mntsnap_snapshot_free(s);
}

/* A kernel without PROPAGATE_FROM (or a caller not asking) still renders. */
LTest(seam, no_propagate_from_no_basic)
{
	struct fake f = { .clear_mask = MNTSNAP_K_STATMOUNT_PROPAGATE_FROM | MNTSNAP_K_STATMOUNT_MNT_BASIC };
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;
	char *text;

	setup();
	s = cap_ok(&f, 0);
	cr_assert_gt(mntsnap_snapshot_count(s), 1);
	mntsnap_snapshot_get(s, 0, &m);
	cr_assert_eq(m.mask & (MNTSNAP_F_ID | MNTSNAP_F_PROPAGATE_FROM), 0);
	text = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	cr_assert_eq(strncmp(text, "0 0 ", 4), 0, "%s", text);
	free(text);
	for (int fmt = MNTSNAP_FORMAT_JSON; fmt <= MNTSNAP_FORMAT_TREE; fmt++)
		free(ms_render(s, fmt));
	mntsnap_snapshot_free(s);
}

/* ---- listmount pagination ------------------------------------------------------ */

static void assert_paged(size_t k, uint32_t flags, const struct mntsnap_snapshot *real)
{
	struct fake f = { .list_k = k };
	struct mntsnap_snapshot *s = cap_ok(&f, flags);
	size_t n = mntsnap_snapshot_count(real);
	char what[64];

	snprintf(what, sizeof(what), "pages of %zu, flags %#x", k, flags);
	cr_assert_eq(mntsnap_snapshot_count(s), n, "%s", what);
	/* one call per full page plus the final empty one */
	cr_assert_eq(f.list_calls, (n + k - 1) / k + 1, "%s: %u calls", what, f.list_calls);
	cr_assert_eq(f.list_flags, flags & MNTSNAP_CAPTURE_REVERSE ? MNTSNAP_K_LISTMOUNT_REVERSE : 0);
	assert_same(s, real, what);
	mntsnap_snapshot_free(s);
}

LTest(seam, listmount_pagination)
{
	struct mntsnap_snapshot *real, *rev;
	size_t n;

	setup();
	/* make the total a multiple of 12, so many page sizes divide it */
	real = real_capture(0);
	n = mntsnap_snapshot_count(real);
	mntsnap_snapshot_free(real);
	for (size_t i = n; i % 12; i++) {
		char p[128];

		snprintf(p, sizeof(p), BASE "/pad%zu", i);
		ms_mkdir_p(p);
		cr_assert_eq(mount("pad", p, "tmpfs", 0, NULL), 0);
	}
	real = real_capture(0);
	rev = real_capture(MNTSNAP_CAPTURE_REVERSE);
	n = mntsnap_snapshot_count(real);
	cr_assert_eq(n % 12, 0);
	for (size_t k = 1; k <= n + 1; k++) {
		assert_paged(k, 0, real);
		assert_paged(k, MNTSNAP_CAPTURE_REVERSE, rev);
	}
	/* reverse really is reversed */
	for (size_t i = 0; i < n; i++) {
		struct mntsnap_mount a, b;

		mntsnap_snapshot_get(real, i, &a);
		mntsnap_snapshot_get(rev, n - 1 - i, &b);
		cr_assert_eq(a.id, b.id);
	}
	mntsnap_snapshot_free(rev);
	mntsnap_snapshot_free(real);
}

LTest(seam, listmount_zero_results)
{
	struct fake f = { .lie = LIE_LIST_ZERO };
	struct mntsnap_snapshot *s = cap_ok(&f, 0);
	char *text;

	cr_assert_eq(mntsnap_snapshot_count(s), 0);
	cr_assert_eq(mntsnap_snapshot_tree_index(s, 0), -ERANGE);
	cr_assert_eq(mntsnap_snapshot_find(s, 0x80000001ULL), -ENOENT);
	text = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	cr_assert_str_eq(text, "");
	free(text);
	for (int fmt = MNTSNAP_FORMAT_JSON; fmt <= MNTSNAP_FORMAT_TREE; fmt++)
		free(ms_render(s, fmt));
	mntsnap_snapshot_free(s);
}

/* ---- a lying kernel ------------------------------------------------------------ */

static void assert_capture_err(enum lie lie, int err)
{
	struct fake f = { .lie = lie };
	struct mntsnap_snapshot *s = (void *)0x1;
	int r = cap(&f, MNTSNAP_BACKEND_STATMOUNT, 0, 0, &s);

	cr_assert_eq(r, err, "lie %d: got %d (%s)", lie, r, strerror(-r));
	cr_assert_eq(s, (void *)0x1);
}

LTest(seam, lying_sizes_and_lists)
{
	setup();
	assert_capture_err(LIE_SIZE_BIG, -EBADMSG);
	assert_capture_err(LIE_SIZE_SMALL, -EBADMSG);
	assert_capture_err(LIE_OTHER_ID, -EBADMSG);
	assert_capture_err(LIE_LIST_OVER, -EBADMSG);
	assert_capture_err(LIE_LIST_REPEAT, -EBADMSG);
}

static struct mntsnap_snapshot *lie_capture(enum lie lie, uint32_t mask)
{
	struct fake f = { .lie = lie };
	struct mntsnap_snapshot *s = NULL;
	int r = cap(&f, MNTSNAP_BACKEND_STATMOUNT, mask, 0, &s);

	cr_assert_eq(r, 0, "lie %d: %s", lie, strerror(-r));
	/* whatever survived must render without trouble */
	for (int fmt = MNTSNAP_FORMAT_MOUNTINFO; fmt <= MNTSNAP_FORMAT_TREE; fmt++)
		free(ms_render(s, fmt));
	return s;
}

LTest(seam, lying_string_offsets_drop_fields)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_mount m;

	setup();
	s = lie_capture(LIE_STR_OFF, MNTSNAP_MASK_FULL);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		mntsnap_snapshot_get(s, i, &m);
		cr_assert_eq(m.mask & (MNTSNAP_F_FS_TYPE | MNTSNAP_F_MOUNT_POINT | MNTSNAP_F_ROOT),
			     0, "mask %#x", m.mask);
		cr_assert_str_eq(m.fs_type, "");
		cr_assert_str_eq(m.mount_point, "");
		cr_assert(m.mask & MNTSNAP_F_ID, "numeric fields survive");
	}
	mntsnap_snapshot_free(s);

	s = lie_capture(LIE_NO_NUL, MNTSNAP_MASK_FULL);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		mntsnap_snapshot_get(s, i, &m);
		cr_assert_eq(m.mask & (MNTSNAP_F_FS_TYPE | MNTSNAP_F_MOUNT_POINT |
				       MNTSNAP_F_ROOT | MNTSNAP_F_SOURCE | MNTSNAP_F_OPTS),
			     0, "mask %#x", m.mask);
	}
	mntsnap_snapshot_free(s);

	s = lie_capture(LIE_LIST_COUNTS, MNTSNAP_MASK_FULL);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		mntsnap_snapshot_get(s, i, &m);
		cr_assert_eq(m.mask & (MNTSNAP_F_OPT_ARRAY | MNTSNAP_F_UIDMAP |
				       MNTSNAP_F_OPT_SEC_ARRAY),
			     0, "mask %#x", m.mask);
		cr_assert_eq(m.opt_num, 0);
		cr_assert_eq(m.uidmap_num, 0);
		cr_assert(m.mask & MNTSNAP_F_MOUNT_POINT);
	}
	mntsnap_snapshot_free(s);
}

LTest(seam, lying_parent_cycle)
{
	struct mntsnap_snapshot *real, *s = (void *)0x1;
	struct mntsnap_mount root, child;
	struct fake f = { .lie = LIE_CYCLE };
	long c;

	setup();
	real = real_capture(0);
	mntsnap_snapshot_get(real, (size_t)mntsnap_snapshot_tree_index(real, 0), &root);
	c = mntsnap_snapshot_first_child(real, root.index);
	cr_assert_geq(c, 0);
	mntsnap_snapshot_get(real, (size_t)c, &child);
	f.cycle_root = root.id;
	f.cycle_child = child.id;
	cr_assert_eq(cap(&f, MNTSNAP_BACKEND_STATMOUNT, 0, 0, &s), -EBADMSG);
	cr_assert_eq(s, (void *)0x1);
	mntsnap_snapshot_free(real);
}

/* ---- fds ------------------------------------------------------------------------ */

LTest(seam, no_fd_leaks_on_error_paths)
{
	int before;

	setup();
	before = ms_count_fds();
	assert_fails_with(-ENOSYS);
	assert_fails_with(-EPERM);
	assert_capture_err(LIE_SIZE_BIG, -EBADMSG);
	assert_capture_err(LIE_LIST_REPEAT, -EBADMSG);
	{
		struct fake f = { .list_err = -ENOSYS };
		struct mntsnap_snapshot *s = NULL;

		cr_assert_eq(cap(&f, MNTSNAP_BACKEND_AUTO, 0, 0, &s), 0);
		mntsnap_snapshot_free(s);
	}
	cr_assert_eq(ms_count_fds(), before, "fd leak");
}

/* ---- the kernel-feature table -------------------------------------------------- */

/* "6.18.44-..." and "6.18" as one comparable number. */
static unsigned release_num(const char *r)
{
	unsigned major = 0, minor = 0;

	sscanf(r, "%u.%u", &major, &minor);
	return major * 1000 + minor;
}

/*
 * The kernel is the oracle: every interface the table says appeared in a
 * release up to the running one answers its probe here (a backport may
 * make a newer one answer too, so those are not held to "absent").
 */
LTest(seam, feature_table_against_the_kernel)
{
	struct utsname u;
	unsigned running;

	cr_assert_eq(uname(&u), 0);
	running = release_num(u.release);
	cr_assert_null(mntsnap__feature(MNTSNAP_FEAT__COUNT));
	for (int i = 0; i < MNTSNAP_FEAT__COUNT; i++) {
		const struct mntsnap_feat_desc *d = mntsnap__feature(i);
		int r;

		cr_assert(d && d->name && d->since && d->probe, "row %d incomplete", i);
		cr_assert_gt(release_num(d->since), 6000, "%s: since %s", d->name, d->since);
		r = mntsnap__feature_probe(i, &mntsnap__sys_real, NULL);
		if (release_num(d->since) <= running)
			cr_assert_eq(r, 0, "%s (since %s) on %s: %s", d->name, d->since, u.release,
				     strerror(-r));
		else
			cr_assert(r == 0 || r == -EINVAL || r == -ENOSYS || r == -ENOTTY,
				  "%s on %s: %s", d->name, u.release, strerror(-r));
	}
}

/* Probes go through the seam, and a fake answer never reaches the process cache. */
LTest(seam, feature_probe_through_the_seam)
{
	static const int errs[] = { -ENOSYS, -EPERM, -EACCES };

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		struct fake f = { .list_err = errs[i] };
		struct mntsnap_sysops ops = fake_ops(&f), sys;

		mntsnap__sys_resolve(&ops, &sys);
		cr_assert_eq(mntsnap__feature_probe(MNTSNAP_FEAT_STATMOUNT, &sys, NULL), errs[i]);
		cr_assert_eq(mntsnap__feature_probe(MNTSNAP_FEAT_MNT_NS_ID, &sys, NULL), errs[i]);
		cr_assert_eq(mntsnap__feature_probe(MNTSNAP_FEAT_MNT_NS_FD, &sys, NULL), errs[i]);
		cr_assert_eq(mntsnap__feature_probe(MNTSNAP_FEAT_LISTMOUNT_REVERSE, &sys, NULL),
			     errs[i]);
		cr_assert_gt(f.list_calls, 0);
		cr_assert_eq(mntsnap_have_statmount(), 1, "a fake answer leaked into the cache");
	}
}

