/* SPDX-License-Identifier: MIT */
/*
 * The test seam's entry points: the public operations that make raw
 * syscalls, with a table of fake syscalls (struct mntsnap_sysops, lib/sys.h)
 * in place of the real ones. Not installed: only the library's own tests
 * and fuzzers include this header. NULL sys means the real syscalls, which
 * is what each public function passes.
 */
#ifndef MNTSNAP_SYS_SEAM_H
#define MNTSNAP_SYS_SEAM_H

#include "mntsnap-supervisor.h"
#include "mntsnap.h"
#include "sys.h"

/* mntsnap_capture() */
int mntsnap__capture_with(const struct mntsnap_capture_opts *opts,
			  const struct mntsnap_sysops *sys, struct mntsnap_snapshot **ret_snap);
/* mntsnap_refresh_with() */
int mntsnap__refresh_sys(struct mntsnap_snapshot *snap, const struct mntsnap_capture_opts *opts,
			 const struct mntsnap_sysops *sys);
/* mntsnap_watch_new() */
int mntsnap__watch_new_with(const struct mntsnap_watch_opts *opts,
			    const struct mntsnap_sysops *sys, struct mntsnap_watch **ret_watch);
/* mntsnap_supervisor_new() */
int mntsnap__supervisor_new_with(const struct mntsnap_policy *policy,
				 const struct mntsnap_supervisor_opts *opts,
				 const struct mntsnap_sysops *sys, struct mntsnap_supervisor **ret_sv);
/* mntsnap_stat_id() */
int mntsnap__stat_id_sys(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap);

#endif
