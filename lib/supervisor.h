/* SPDX-License-Identifier: MIT */
/* Mount options and policy internals shared by policy.c and supervisor.c. */
#ifndef MNTSNAP_SUPERVISOR_INTERNAL_H
#define MNTSNAP_SUPERVISOR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "mntsnap-supervisor.h"

/*
 * A mount flag as mount(2) sets it (ms), as the new mount API sets it
 * (attr: MOUNT_ATTR_* on the mount; sb: an fsconfig flag on the
 * superblock) and by name, with the name of its absence.
 */
struct mntsnap__mntflag {
	const char *name;
	const char *opposite;
	uint32_t ms;
	uint64_t attr;     /* 0 with attr_atime: an atime mode */
	bool attr_atime;   /* attr is a value of MOUNT_ATTR__ATIME */
	const char *sb;    /* fsconfig flag, NULL if per-mount only */
};

/* The flag whose name or opposite is name (*ret_set: which), or NULL. */
const struct mntsnap__mntflag *mntsnap__mntflag_find(const char *name, size_t len,
						     bool *ret_set);

/* Every MS_* bit mntsnap__mntflag knows. */
uint32_t mntsnap__mntflag_ms_all(void);

/*
 * Names of the ms bits, comma-joined, then data (appended as is): the
 * "options asked" of a mount(2) request. Malloc'd; NULL on ENOMEM.
 */
char *mntsnap__opts_from_ms(uint32_t ms, const char *data);

/*
 * The options to perform: asked with rule's force list applied (forced
 * flags override their opposite, forced keys replace asked ones).
 * rule < 0: asked unchanged. Malloc'd; NULL on ENOMEM.
 */
char *mntsnap__policy_apply(const struct mntsnap_policy *p, int rule, const char *asked);

/* The policy's errno for refusals that name none (positive). */
int mntsnap__policy_errno(const struct mntsnap_policy *p);

/*
 * Could a rule match fstype (NULL = unknown), or the default allow? When
 * not, the default refuses it whatever the paths: no need to resolve them.
 */
bool mntsnap__policy_may_allow(const struct mntsnap_policy *p, const char *fstype);

#endif
