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

int mntsnap_opts_valid(const void *opts, size_t user_sz, size_t known_sz)
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

int mntsnap_set_error(struct mntsnap_error *e, int err, unsigned line, const char *fmt, ...)
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
	 * Per-process cache (the only static state in the library): the answer
	 * is a property of the kernel and of the seccomp filter, and filters
	 * can only be added, never removed. 0 = unknown, 1 = yes, 2 = no.
	 */
	static atomic_int cached;
	struct mnt_id_req req = { .size = MNT_ID_REQ_SIZE_VER0, .mnt_id = LSMT_ROOT };
	uint64_t id;
	int c = atomic_load_explicit(&cached, memory_order_relaxed);
	long r;

	if (c)
		return c == 1;
	r = mntsnap_sys_listmount(NULL, &req, &id, 1, 0);
	c = r >= 0 || !sm_unavailable((int)r) ? 1 : 2;
	atomic_store_explicit(&cached, c, memory_order_relaxed);
	return c == 1;
}

uint64_t mntsnap_kernel_supported_mask(void)
{
	struct mnt_id_req req = { .size = MNT_ID_REQ_SIZE_VER0, .mnt_id = LSMT_ROOT };
	struct mntsnap_sm_buf b;
	uint64_t id, mask = 0;

	if (mntsnap_sys_listmount(NULL, &req, &id, 1, 0) != 1)
		return 0;
	if (mntsnap_sm_buf_init(&b))
		return 0;
	if (!mntsnap_sm_call(&mntsnap_sys_real, &req, id, STATMOUNT_SUPPORTED_MASK, &b) &&
	    (b.sm->mask & STATMOUNT_SUPPORTED_MASK))
		mask = b.sm->supported_mask;
	mntsnap_sm_buf_free(&b);
	return mask;
}

static int capture_statmount(const struct mntsnap_capture_opts *o,
			     const struct mntsnap_sysops *sys, uint32_t want,
			     struct mntsnap_snapshot **ret)
{
	size_t vanished = 0;

	return mntsnap_statmount_capture(o, sys, want, ret, &vanished);
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
		r = mntsnap_opts_valid(opts, opts->sz, sizeof(o));
		if (r)
			return r;
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	}
	want = o.mask ? o.mask & MNTSNAP_F_ALL : MNTSNAP_MASK_DEFAULT;
	mntsnap_sys_resolve(o.sysops, &sys);

	switch (o.backend) {
	case MNTSNAP_BACKEND_AUTO:
	case MNTSNAP_BACKEND_STATMOUNT:
		r = capture_statmount(&o, &sys, want, ret_snap);
		break;
	default:
		return mntsnap_set_error(o.error, -EINVAL, 0, "unknown backend %d", o.backend);
	}
	if (r < 0)
		mntsnap_set_error(o.error, r, 0, "statmount capture failed: %s", strerror(-r));
	return r;
}
