// SPDX-License-Identifier: MIT
/*
 * The decide stage: the policy over a decoded request. No syscalls and
 * nothing but the struct sv_req and the policy: unit-tested on plain
 * structs (tests/test-sv-decide.c) and fuzzed (tests/fuzz/fuzz-policy.c).
 * A request is decided twice: early, on what the caller asked (a type no
 * rule can allow is refused before any namespace is opened), and in the
 * worker on the paths resolved inside the container's root (what the
 * perform stage found is written into the struct before it asks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor.h"

/*
 * Could a rule allow a mount of fstype (a new mount's, "bind", a new-API
 * context's) at all? When not, the policy refuses it whatever the paths:
 * no need to open the caller's namespaces and resolve them. _early: the
 * same for a decoded mount(2), whose type is known only for a new mount
 * or a bind until the paths are resolved.
 */
int mntsnap__sv_decide_type(const struct mntsnap_policy *p, struct sv_req *q, const char *fstype)
{
	if (!mntsnap__policy_may_allow(p, fstype)) {
		q->reason = "policy";
		q->rule = -1;
		return -mntsnap__policy_errno(p);
	}
	return 0;
}

int mntsnap__sv_decide_early(const struct mntsnap_policy *p, struct sv_req *q)
{
	if (q->kind == SV_NEW || q->kind == SV_BIND)
		return mntsnap__sv_decide_type(p, q, mntsnap__sv_match_fstype(q));
	return 0;
}

static void note_grant(struct sv_req *q, const char *name)
{
	size_t n = strlen(q->grant);

	snprintf(q->grant + n, sizeof(q->grant) - n, "%s%s", n ? "," : "", name);
}

/*
 * What a runtime hides stays hidden: a new proc or sysfs has none of the
 * masks a runtime puts over /proc (kcore, keys, sysrq-trigger, a read-only
 * /proc/sys), and where the container has no user namespace of its own
 * the kernel's "too revealing" check does not apply either: a writable
 * /proc/sys there is the host's kernel settings. So a proc is "subset=pid"
 * (its processes, nothing else; also forced on its superblock remount,
 * where "subset=" would clear it) and a sysfs is "ro" (also on remounts,
 * whose flags replace the mount's), unless the rule grants otherwise. A
 * cgroup2 (or cgroup) is "ro" too, as runtimes mount /sys/fs/cgroup: it is
 * rooted at the container's cgroup namespace, which a runtime may have left
 * at the host's cgroup (crun without a cgroup manager), and a writable one
 * changes the limits of that cgroup and of everything below it.
 */
static int type_defaults(struct sv_req *q, unsigned grant)
{
	static const char *const subset[] = { "subset=pid", NULL };
	static const char *const ro[] = { "ro", NULL };
	const char *t = mntsnap__sv_match_fstype(q);
	const char *const *force = NULL;
	char *n;

	if (grant & MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS)
		note_grant(q, "host-credentials");
	if (!t || q->kind == SV_PROPAGATION || q->kind == SV_MOVE || q->kind == SV_BIND)
		return 0;
	if (!strcmp(t, "proc") && q->kind != SV_REMOUNT_BIND) {
		if (grant & MNTSNAP_POLICY_GRANT_FULL_PROC)
			note_grant(q, "full-proc");
		else
			force = subset;
	} else if (!strcmp(t, "sysfs")) {
		if (grant & MNTSNAP_POLICY_GRANT_WRITABLE_SYSFS)
			note_grant(q, "writable-sysfs");
		else
			force = ro;
	} else if (mntsnap__sv_is_cgroup(t)) {
		if (grant & MNTSNAP_POLICY_GRANT_WRITABLE_CGROUP)
			note_grant(q, "writable-cgroup");
		else
			force = ro;
	}
	if (!force)
		return 0;
	n = mntsnap__opts_force(q->applied, force);
	if (!n)
		return -ENOMEM;
	free(q->applied);
	q->applied = n;
	return 0;
}

/*
 * The rule for the resolved request and the options to perform. src: the
 * source a remount or move found for the mount it acts on (a bind's),
 * else NULL: a bind and a move of a new mount go by the resolved source,
 * the rest by the source asked.
 */
int mntsnap__sv_decide(struct sv_req *q, const struct mntsnap_policy *p, const char *src)
{
	int r;

	q->reason = "policy";
	if (q->kind == SV_BIND || (q->kind == SV_MOVE && !src))
		src = q->rsource;
	else if (!src) /* a remounted or moved bind's was set above */
		src = q->has_source ? q->source : NULL;
	r = mntsnap__policy_check(p, mntsnap__sv_match_fstype(q), src, q->rtarget, q->asked, &q->rule);
	if (r)
		return r;
	/* force is about mount options: a move or a type change keeps them */
	if (q->kind == SV_PROPAGATION || q->kind == SV_MOVE)
		q->applied = strdup(q->asked);
	else
		q->applied = mntsnap__policy_apply(p, q->rule, q->asked);
	if (!q->applied)
		return -ENOMEM;
	return type_defaults(q, mntsnap__policy_grant(p, q->rule));
}

/*
 * binfmt_misc has one instance per user namespace (6.7+; one for the
 * whole system before): made with the supervisor's credentials, in a
 * container without a user namespace of its own or under a
 * host-credentials grant, it is the host's, and an interpreter registered
 * there runs for every exec on the host. Refused whatever the policy says.
 */
int mntsnap__sv_decide_instance(struct sv_req *q, const struct mntsnap_policy *p, bool own_userns)
{
	unsigned g = mntsnap__policy_grant(p, q->rule);

	if (q->kind != SV_NEW || strcmp(q->fstype, "binfmt_misc"))
		return 0;
	if (own_userns && !(g & MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS))
		return 0;
	q->reason = "host's instance";
	return -mntsnap__policy_errno(p);
}
