// SPDX-License-Identifier: MIT
/*
 * mntsnap_capture(): option checking and backend choice.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "ns.h"
#include "snapshot.h"

int mntsnap__opts_valid(const void *opts, size_t user_sz, size_t known_sz)
{
	const unsigned char *p = opts;

	if (!opts)
		return 0;
	if (user_sz < sizeof(size_t))
		return -EINVAL;
	for (size_t i = known_sz; i < user_sz; i++)
		if (p[i])
			return -E2BIG;
	return 0;
}

int mntsnap__opts_check(const void *opts, size_t user_sz, size_t known_sz, const char *type,
		       struct mntsnap_error *e)
{
	int r = mntsnap__opts_valid(opts, user_sz, known_sz);

	if (r == -EINVAL)
		return mntsnap__set_error(e, r, 0,
					 "struct %s: sz is %zu; declare it with MNTSNAP_OPTS(%s, "
					 "name, ...) or set .sz = sizeof(struct %s)",
					 type, user_sz, type, type);
	if (r == -E2BIG)
		return mntsnap__set_error(e, r, 0,
					 "struct %s: non-zero bytes past the %zu this library "
					 "knows (sz %zu): built against a newer mntsnap.h?",
					 type, known_sz, user_sz);
	return r;
}

int mntsnap__set_error(struct mntsnap_error *e, int err, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return err;
	e->err = err;
	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return err;
}

/* Errors that mean "this process cannot use statmount/listmount at all". */
static bool sm_unavailable(int err)
{
	return err == -ENOSYS || err == -EPERM || err == -EACCES;
}

int mntsnap_have_statmount(void)
{
	/*
	 * Per-process cache (one of the library's three process-wide states,
	 * with the kernel release in mntsnap__snap_stamp() and the helpers'
	 * dumpable count in ns-helper.c): the answer
	 * is a property of the kernel and of the seccomp filter, and filters
	 * can only be added, never removed. 0 = unknown, 1 = yes, 2 = no.
	 */
	static atomic_int cached;
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = MNTSNAP_K_LSMT_ROOT };
	uint64_t id;
	int c = atomic_load_explicit(&cached, memory_order_relaxed);
	long r;

	if (c)
		return c == 1;
	r = mntsnap__sys_listmount(NULL, &req, &id, 1, 0);
	c = r >= 0 || !sm_unavailable((int)r) ? 1 : 2;
	atomic_store_explicit(&cached, c, memory_order_relaxed);
	return c == 1;
}

uint64_t mntsnap_kernel_supported_mask(void)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = MNTSNAP_K_LSMT_ROOT };
	struct mntsnap_sm_buf b;
	uint64_t id, mask = 0;

	if (mntsnap__sys_listmount(NULL, &req, &id, 1, 0) != 1)
		return 0;
	if (mntsnap__sm_buf_init(&b))
		return 0;
	if (!mntsnap__sm_call(&mntsnap__sys_real, &req, id, MNTSNAP_K_STATMOUNT_SUPPORTED_MASK, &b) &&
	    (b.sm->mask & MNTSNAP_K_STATMOUNT_SUPPORTED_MASK))
		mask = b.sm->supported_mask;
	mntsnap__sm_buf_free(&b);
	return mask;
}

static int capture_statmount(const struct mntsnap_capture_opts *o,
			     const struct mntsnap_sysops *sys, uint32_t want,
			     struct mntsnap_snapshot **ret)
{
	/* retried until no change detector fires (lib/refresh.c) */
	return mntsnap__capture_consistent(o, sys, want, ret);
}

/*
 * Can AUTO use statmount here? One listmount of one id with the very
 * request the capture will send. Besides "blocked or missing", an old
 * kernel rejects a request it is too small for: a VER1 size with a
 * mnt_ns_id (E2BIG before 6.11) or the mnt_ns_fd field (EINVAL before
 * 6.18); mountinfo of the target's process still works there. Without a
 * seam and for the own namespace, the per-process cache answers first;
 * with a seam the cache is neither read nor written, so a test's fake
 * errors never leak into the process-wide answer.
 */
static bool auto_use_statmount(const struct mntsnap_capture_opts *o,
			       const struct mntsnap_sysops *sys)
{
	struct mntsnap_k_mnt_id_req req = {0};
	uint64_t id;
	long r;

	if (!o->sysops && !mntsnap_have_statmount())
		return false;
	mntsnap_ns_fill_req(o->ns, true, &req);
	if (!o->sysops && req.size == MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 && !req.mnt_ns_fd)
		return true; /* the cached probe sent exactly this request */
	req.mnt_id = MNTSNAP_K_LSMT_ROOT;
	r = sys->listmount(sys->ctx, &req, &id, 1, 0);
	return !(sm_unavailable((int)r) || r == -E2BIG || r == -EINVAL);
}

static int sm_error(const struct mntsnap_capture_opts *o, int r)
{
	/* -EAGAIN comes with its own message (lib/refresh.c) */
	if (r < 0 && r != -EAGAIN)
		mntsnap__set_error(o->error, r, 0, "statmount capture failed: %s", strerror(-r));
	return r;
}

static int capture_auto(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
			uint32_t want, struct mntsnap_snapshot **ret)
{
	int r;

	if (!auto_use_statmount(o, sys))
		return mntsnap__mountinfo_capture(o, sys, want, ret);
	r = capture_statmount(o, sys, want, ret);
	/* a filter may block statmount but not listmount, or arrive late */
	if (sm_unavailable(r))
		return mntsnap__mountinfo_capture(o, sys, want, ret);
	return sm_error(o, r);
}

int mntsnap_capture(const struct mntsnap_capture_opts *opts,
		    struct mntsnap_snapshot **ret_snap)
{
	struct mntsnap_capture_opts o = { .sz = sizeof(o) };
	struct mntsnap_sysops sys;
	uint32_t want;
	int r;

	if (!ret_snap)
		return -EINVAL;
	if (opts) {
		r = mntsnap__opts_check(opts, opts->sz, sizeof(o), "mntsnap_capture_opts",
				       opts->error);
		if (r)
			return r;
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	}
	want = o.mask ? o.mask & MNTSNAP_F_ALL : MNTSNAP_MASK_DEFAULT;
	mntsnap__sys_resolve(o.sysops, &sys);

	if (o.mountinfo_path && o.backend != MNTSNAP_BACKEND_MOUNTINFO &&
	    o.backend != MNTSNAP_BACKEND_AUTO)
		return mntsnap__set_error(o.error, -EINVAL, 0,
					 "mountinfo_path needs the mountinfo backend");
	/* a foreign namespace: ns.c decides direct query or entering, then
	 * calls back with the route fixed (lib/ns.c mntsnap__ns_capture) */
	if (mntsnap_ns_needs_route(o.ns) && !o.mountinfo_path)
		return mntsnap__ns_capture(&o, &sys, ret_snap);
	switch (o.backend) {
	case MNTSNAP_BACKEND_AUTO:
		/* a file to parse is the mountinfo backend's input, nothing else */
		if (o.mountinfo_path)
			return mntsnap__mountinfo_capture(&o, &sys, want, ret_snap);
		return capture_auto(&o, &sys, want, ret_snap);
	case MNTSNAP_BACKEND_STATMOUNT:
		return sm_error(&o, capture_statmount(&o, &sys, want, ret_snap));
	case MNTSNAP_BACKEND_MOUNTINFO:
		/* sets its own detailed error (line and field) */
		return mntsnap__mountinfo_capture(&o, &sys, want, ret_snap);
	default:
		return mntsnap__set_error(o.error, -EINVAL, 0, "unknown backend %d", o.backend);
	}
}
