// SPDX-License-Identifier: MIT
/*
 * One capture of a namespace this process can reach: the statmount source
 * (with its retries, lib/consistent.c) or the mountinfo text, chosen by
 * the caller's backend. Knows nothing of routing: the router (lib/route.c)
 * has already decided how to reach a foreign namespace and passes that
 * decision down as a value; inside a helper the target is "own".
 */
#include <errno.h>
#include <string.h>

#include "backends.h"
#include "kernel-features.h"
#include "target.h"
#include "snapshot.h"

/* Errors that mean "this process cannot use statmount/listmount at all". */
static bool sm_unavailable(int err)
{
	return err == -ENOSYS || err == -EPERM || err == -EACCES;
}

bool mntsnap__have_statmount(void)
{
	/* any other answer (a transient ENOMEM) still shows the calls exist */
	return !sm_unavailable(mntsnap__feature_probe(MNTSNAP_FEAT_STATMOUNT, &mntsnap__sys_real,
						      NULL));
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
			       const struct mntsnap_sysops *sys, int route)
{
	struct mntsnap_k_mnt_id_req req = {0};
	int r;

	if (!sys->seam && !mntsnap__have_statmount())
		return false;
	mntsnap_ns_fill_req(o->ns, route, &req);
	if (!sys->seam && req.size == MNTSNAP_K_MNT_ID_REQ_SIZE_VER0 && !req.mnt_ns_fd)
		return true; /* the cached probe sent exactly this request */
	r = mntsnap__feature_probe(mntsnap__feature_of_req(&req), sys, &req);
	return !(sm_unavailable(r) || r == -E2BIG || r == -EINVAL);
}

static int sm_error(const struct mntsnap_capture_opts *o, int r)
{
	/* -EAGAIN comes with its own message (lib/consistent.c) */
	if (r < 0 && r != -EAGAIN)
		mntsnap__set_error(o->error, r, 0, "statmount capture failed: %s", strerror(-r));
	return r;
}

static int capture_auto(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
			int route, uint32_t want, struct mntsnap_snapshot **ret)
{
	int r;

	if (!auto_use_statmount(o, sys, route))
		return mntsnap__mountinfo_capture(o, sys, want, ret);
	r = mntsnap__capture_consistent(o, sys, route, want, ret);
	/* a filter may block statmount but not listmount, or arrive late */
	if (sm_unavailable(r))
		return mntsnap__mountinfo_capture(o, sys, want, ret);
	return sm_error(o, r);
}

int mntsnap__capture_source(const struct mntsnap_capture_opts *o,
			    const struct mntsnap_sysops *sys, int route,
			    struct mntsnap_snapshot **ret_snap)
{
	uint32_t want = o->mask ? o->mask & MNTSNAP_F_ALL : MNTSNAP_MASK_DEFAULT;

	switch (o->backend) {
	case MNTSNAP_BACKEND_AUTO:
		/* a file to parse is the mountinfo backend's input, nothing else */
		if (o->mountinfo_path)
			return mntsnap__mountinfo_capture(o, sys, want, ret_snap);
		return capture_auto(o, sys, route, want, ret_snap);
	case MNTSNAP_BACKEND_STATMOUNT:
		return sm_error(o, mntsnap__capture_consistent(o, sys, route, want, ret_snap));
	case MNTSNAP_BACKEND_MOUNTINFO:
		/* sets its own detailed error (line and field) */
		return mntsnap__mountinfo_capture(o, sys, want, ret_snap);
	default:
		return mntsnap__set_error(o->error, -EINVAL, 0, "unknown backend %d", o->backend);
	}
}
