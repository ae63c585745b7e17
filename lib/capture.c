// SPDX-License-Identifier: MIT
/*
 * mntsnap_capture() and the kernel queries of the public API: option
 * loading, then the caller's own namespace straight to the sources
 * (lib/source.c), a foreign one to the router (lib/route.c).
 */
#include <errno.h>
#include <string.h>

#include "backends.h"
#include "ns.h"
#include "route.h"
#include "snapshot.h"
#include "sys-seam.h"

int mntsnap_have_statmount(void)
{
	return mntsnap__have_statmount();
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

int mntsnap__capture_with(const struct mntsnap_capture_opts *opts,
			  const struct mntsnap_sysops *seam, struct mntsnap_snapshot **ret_snap)
{
	struct mntsnap_capture_opts o = { .sz = sizeof(o) };
	struct mntsnap_sysops sys;
	int r;

	if (!ret_snap)
		return -EINVAL;
	r = OPTS_LOAD_ERR(&o, opts, "mntsnap_capture_opts");
	if (r)
		return r;
	mntsnap__sys_resolve(seam, &sys);

	if (o.mountinfo_path && o.backend != MNTSNAP_BACKEND_MOUNTINFO &&
	    o.backend != MNTSNAP_BACKEND_AUTO)
		return mntsnap__set_error(o.error, -EINVAL, 0,
					 "mountinfo_path needs the mountinfo backend");
	/* a foreign namespace: the router decides direct query or entering */
	if (mntsnap_ns_foreign(o.ns) && !o.mountinfo_path)
		return mntsnap__route_capture(&o, &sys, ret_snap);
	return mntsnap__capture_source(&o, &sys, MNTSNAP_NS_ROUTE_AUTO, ret_snap);
}

int mntsnap_capture(const struct mntsnap_capture_opts *opts,
		    struct mntsnap_snapshot **ret_snap)
{
	return mntsnap__capture_with(opts, NULL, ret_snap);
}
