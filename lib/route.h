/* SPDX-License-Identifier: MIT */
/* The router (lib/route.c): how a foreign namespace is reached. */
#ifndef MNTSNAP_ROUTE_H
#define MNTSNAP_ROUTE_H

#include <stdint.h>

struct mntsnap_capture_opts;
struct mntsnap_ns;
struct mntsnap_snapshot;
struct mntsnap_sysops;

/*
 * Capture the foreign namespace o->ns: direct query by fd, else by id,
 * else a helper that enters it, else (no right to enter, a pid handle)
 * the process's mountinfo text. A pid target's records are re-rooted to
 * the process's root.
 */
int mntsnap__route_capture(const struct mntsnap_capture_opts *o, const struct mntsnap_sysops *sys,
			  struct mntsnap_snapshot **ret_snap);

/*
 * mntsnap_stat_id with a seam: a foreign ns takes the capture's order (by
 * mnt_ns_fd, by mnt_ns_id, else inside it with the helper). -ENOENT (no
 * such mount there, or no such namespace), -EPERM (no right to query or
 * enter), -ESRCH (the process has exited).
 */
int mntsnap__stat_id_sys(const struct mntsnap_sysops *sys, const struct mntsnap_ns *ns,
			uint64_t id, uint32_t mask, struct mntsnap_snapshot **ret_snap);

#endif
