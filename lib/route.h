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

#endif
