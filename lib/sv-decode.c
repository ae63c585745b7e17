// SPDX-License-Identifier: MIT
/*
 * The decode stage: a request's arguments, as the read stage copied them
 * from the caller, turned into the plain struct sv_req the later stages
 * go by (which kind of mount(2) call, its flags by name). No syscalls:
 * everything here is a function of the struct and the numbers in the
 * notification, so it can be tested and fuzzed on structs alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor.h"
#include "uapi.h"

#define MNT_FORCE_ 1U
#define MNT_DETACH_ 2U
#define MNT_EXPIRE_ 4U
#define UMOUNT_NOFOLLOW_ 8U

#define MS_PROPAGATION_ (MNTSNAP_MS_SHARED | MNTSNAP_MS_SLAVE | MNTSNAP_MS_PRIVATE | \
			 MNTSNAP_MS_UNBINDABLE)

static const struct {
	uint32_t ms;
	const char *name;
} propagations[] = {
	{ MNTSNAP_MS_SHARED, "shared" },
	{ MNTSNAP_MS_SLAVE, "slave" },
	{ MNTSNAP_MS_PRIVATE, "private" },
	{ MNTSNAP_MS_UNBINDABLE, "unbindable" },
};

/* A propagation change: exactly one type, optionally MS_REC, as the kernel wants. */
static int decode_propagation(struct sv_req *q, uint32_t f)
{
	q->kind = SV_PROPAGATION;
	q->rec = f & MNTSNAP_K_MS_REC;
	f &= ~MNTSNAP_K_MS_REC;
	for (size_t i = 0; i < sizeof(propagations) / sizeof(propagations[0]); i++)
		if (f == propagations[i].ms) {
			q->prop = f;
			return 0;
		}
	return -EINVAL;
}

/*
 * Which kind of request, in the order mount(2) itself tests the flags
 * (remount, bind, propagation, move, new); -EOPNOTSUPP for flags the
 * supervisor does not know.
 */
int mntsnap__sv_decode_mount(struct sv_req *q, uint64_t flags64)
{
	uint32_t f = (uint32_t)flags64;

	if (flags64 >> 32)
		return -EINVAL;
	if ((f & MNTSNAP_K_MS_MGC_MSK) == MNTSNAP_K_MS_MGC_VAL)
		f &= ~MNTSNAP_K_MS_MGC_MSK; /* the pre-2.4 magic, ignored by the kernel too */
	f &= ~MNTSNAP_K_MS_SILENT;
	if (f & MNTSNAP_K_MS_REMOUNT) {
		q->kind = f & MNTSNAP_K_MS_BIND ? SV_REMOUNT_BIND : SV_REMOUNT;
		f &= ~(MNTSNAP_K_MS_REMOUNT | MNTSNAP_K_MS_BIND);
	} else if (f & MNTSNAP_K_MS_BIND) {
		q->kind = SV_BIND;
		q->rec = f & MNTSNAP_K_MS_REC;
		f &= ~(MNTSNAP_K_MS_BIND | MNTSNAP_K_MS_REC);
	} else if (f & MS_PROPAGATION_) {
		return decode_propagation(q, f);
	} else if (f & MNTSNAP_K_MS_MOVE) {
		q->kind = SV_MOVE; /* mount(2) ignores every other flag here */
		return 0;
	} else {
		q->kind = SV_NEW;
	}
	if (f & ~mntsnap__mntflag_ms_all())
		return -EOPNOTSUPP;
	q->ms = f;
	return 0;
}

/* "private" or "private,rec": how rules see a propagation change */
static char *propagation_opts(const struct sv_req *q)
{
	for (size_t i = 0; i < sizeof(propagations) / sizeof(propagations[0]); i++)
		if (q->prop == propagations[i].ms) {
			char *s = malloc(strlen(propagations[i].name) + 5);

			if (s)
				sprintf(s, "%s%s", propagations[i].name, q->rec ? ",rec" : "");
			return s;
		}
	return NULL;
}

/*
 * The options a rule sees: the flags by name and the data for a mount(2),
 * "private" or "private,rec" for a propagation change.
 */
char *mntsnap__sv_decode_asked(const struct sv_req *q)
{
	return q->kind == SV_PROPAGATION ? propagation_opts(q) : mntsnap__opts_from_ms(q->ms, q->data);
}

/*
 * umount2(2): the kind and the flags. -EOPNOTSUPP for MNT_FORCE and
 * MNT_EXPIRE (not for containers: the policy's refusal), -EINVAL for
 * flags umount2 does not know; the flags are kept either way.
 */
int mntsnap__sv_decode_umount(struct sv_req *q, uint64_t flags64)
{
	q->kind = SV_UMOUNT;
	q->umount_flags = (unsigned)flags64;
	if (flags64 >> 32 || (q->umount_flags & ~(MNT_DETACH_ | UMOUNT_NOFOLLOW_)))
		return q->umount_flags & (MNT_FORCE_ | MNT_EXPIRE_) ? -EOPNOTSUPP : -EINVAL;
	return 0;
}

/*
 * fstype as rules see it: "bind" for binds, the mount's own for remounts,
 * propagation changes and moves
 */
bool mntsnap__sv_is_cgroup(const char *fstype)
{
	return fstype && (!strcmp(fstype, "cgroup2") || !strcmp(fstype, "cgroup"));
}

const char *mntsnap__sv_match_fstype(const struct sv_req *q)
{
	switch (q->kind) {
	case SV_BIND:
		return "bind";
	case SV_NEW:
		return q->fstype;
	default:
		return q->mfstype[0] ? q->mfstype : NULL;
	}
}
