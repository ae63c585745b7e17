/* SPDX-License-Identifier: MIT */
/* The router (lib/route.c): how a foreign namespace is reached. */
#ifndef MNTSNAP_ROUTE_H
#define MNTSNAP_ROUTE_H

#include <stdbool.h>
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
 * A pid target's view of s, a statmount capture of its whole namespace
 * with ids and mount points (and /proc ids when want has propagate_from):
 * the mounts reachable from the process's root, their mount points
 * relative to it, propagate_from as the process's own mountinfo shows it
 * when that root is not the namespace's. The capture's and the
 * watcher's (which keeps the whole namespace and hands out this view).
 */
int mntsnap__route_pid_view(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			    struct mntsnap_snapshot *s, uint32_t want, struct mntsnap_error *err);

/*
 * Does a pid target see all of s, a finished capture of its namespace
 * (its root the namespace's, or one that mntsnap__route_pid_view() could
 * not find and so leaves whole)?
 */
bool mntsnap__route_pid_whole(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			      const struct mntsnap_snapshot *s);

/*
 * propagate_from as a text from the right root shows it (see route.c's
 * pf_text(): process, the process's own mountinfo; else a helper's from
 * the namespace's root), as (/proc mount id << 32 | propagate_from) pairs
 * sorted, in a malloc'd *ret. A text that cannot be had (a process gone,
 * no right to read it or to enter, a torn text) gives no pairs, not an
 * error: only -ENOMEM and running out of fds fail.
 */
int mntsnap__route_pf_pairs(const struct mntsnap_ns *ns, const struct mntsnap_sysops *sys,
			    bool process, uint32_t flags, uint64_t **ret, uint32_t *ret_n);

/*
 * Does statmount asked from here reach a pid target's root? false only
 * when the process is in the caller's namespace and the caller's root (a
 * chroot()) surely does not reach the process's: statmount and listmount
 * then answer from the caller's root, missing the process's mounts.
 */
bool mntsnap__route_caller_reaches_root(const struct mntsnap_ns *ns,
					 const struct mntsnap_sysops *sys);

/* *ret_pf for /proc mount id id_old in pairs; false: the text lacks it. */
bool mntsnap__route_pf_find(const uint64_t *pairs, uint32_t n, uint32_t id_old, uint32_t *ret_pf);

#endif
