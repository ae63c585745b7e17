// SPDX-License-Identifier: MIT
/*
 * The answer stage, the last one of every request: the supervisor's
 * record of the mounts it made for a container brought up to date, the
 * audit line written (before the answer: once answered, the caller may
 * look for it) and the caller answered with SEND, unless an ADDFD with
 * SEND already did.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mntsnap.h"
#include "proc.h"
#include "supervisor.h"
#include "sys.h"
#include "uapi.h"

/*
 * The id of the caller's mount namespace, where the worker just mounted
 * (the caller is still blocked in the call: it cannot have moved), 0 when
 * unknown (before 6.11, or the caller gone).
 */
static uint64_t caller_mntns_id(const struct sv_req *q)
{
	char rel[48];
	uint64_t id = 0;
	int proc = mntsnap__procfs_root(), fd;

	if (proc < 0)
		return 0;
	snprintf(rel, sizeof(rel), "%u/ns/mnt", q->n.pid);
	fd = mntsnap__proc_ns_open(proc, rel);
	close(proc);
	if (fd < 0)
		return 0;
	if (mntsnap__sys_ioctl(NULL, fd, MNTSNAP_NS_GET_MNTNS_ID, &id) < 0)
		id = 0;
	close(fd);
	return id;
}

/*
 * Is the mount id still in the namespace ns_id? Only a definite "no" (the
 * kernel's ENOENT: unique ids are never reused) counts: without the
 * right to look (EPERM), or before 6.11, it is kept.
 */
static bool mount_vanished(const struct sv_mount *m)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER1,
					     .mnt_id = m->id,
					     .param = MNTSNAP_K_STATMOUNT_SB_BASIC,
					     .mnt_ns_id = m->ns_id };
	struct mntsnap_k_statmount sm;

	if (!m->ns_id)
		return false;
	return mntsnap__sys_statmount(NULL, &req, &sm, sizeof(sm), 0) == -ENOENT;
}

/*
 * Forget the mounts that are gone without a umount2 the supervisor saw: a
 * mount point removed from another mount namespace (rmdir there detaches
 * the mounts on it everywhere), the namespace gone. Without this a
 * container grew the record by 250 bytes a round for ever while holding
 * no mount. Run when the record doubles, so its cost per mount stays
 * constant.
 */
static void prune(struct sv_container *c)
{
	for (size_t i = c->nmounted; i-- > 0;)
		if (mount_vanished(&c->mounted[i])) {
			free(c->mounted[i].bind_source);
			c->mounted[i] = c->mounted[--c->nmounted];
		}
	c->prune_at = c->nmounted * 2 > SV_PRUNE_MIN ? c->nmounted * 2 : SV_PRUNE_MIN;
}

/* Remember (or forget) a mount made for c. */
static void track(struct sv_container *c, const struct sv_req *q)
{
	if (q->result || !q->mnt_id)
		return;
	if (q->kind == SV_UMOUNT) {
		for (size_t i = 0; i < c->nmounted; i++)
			if (c->mounted[i].id == q->mnt_id) {
				free(c->mounted[i].bind_source);
				c->mounted[i] = c->mounted[--c->nmounted];
				return;
			}
	} else if (q->kind == SV_NEW || q->kind == SV_BIND) {
		struct sv_mount m = { .id = q->mnt_id, .own_sb = q->own_sb, .locked = q->locked };
		struct sv_mount *n;

		if (c->nmounted >= (c->prune_at ? c->prune_at : SV_PRUNE_MIN))
			prune(c);
		m.ns_id = caller_mntns_id(q);
		if (q->kind == SV_BIND && !(m.bind_source = strdup(q->rsource)))
			return;
		n = realloc(c->mounted, (c->nmounted + 1) * sizeof(*n));
		/* without memory it is only forgotten: umount2 of it is refused */
		if (!n) {
			free(m.bind_source);
			return;
		}
		c->mounted = n;
		c->mounted[c->nmounted++] = m;
	}
}

/* ---- audit -------------------------------------------------------------- */

static const char *syscall_name(const struct sv_req *q, char *buf, size_t len)
{
	if (q->sysname)
		return q->sysname;
	/* another ABI's numbers mean other calls: i386 165 is getresuid */
	if (q->n.data.arch != NATIVE_ARCH) {
		snprintf(buf, len, "nr:%d,arch:0x%08x", q->n.data.nr, q->n.data.arch);
		return buf;
	}
	if (q->n.data.nr == SYS_mount)
		return "mount";
	if (q->n.data.nr == SYS_umount2)
		return "umount2";
	snprintf(buf, len, "nr:%d", q->n.data.nr);
	return buf;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Did q change a mount (performed)? Those are audited whatever the budget. */
static bool changed_a_mount(const struct sv_req *q)
{
	if (q->result || q->n.data.arch != NATIVE_ARCH)
		return false;
	return q->n.data.nr == SYS_mount || q->n.data.nr == SYS_umount2 ||
	       q->n.data.nr == MNTSNAP_NR_move_mount;
}

/*
 * Take len bytes from c's audit budget (refilled at SV_AUDIT_RATE up to
 * SV_AUDIT_BURST); false when it has not that much. Under audit_lock.
 */
static bool audit_budget(struct sv_container *c, size_t len)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	if (!c->audit_last_ns)
		c->audit_tokens = SV_AUDIT_BURST;
	else
		c->audit_tokens += (double)(now - c->audit_last_ns) / 1e9 * SV_AUDIT_RATE;
	if (c->audit_tokens > SV_AUDIT_BURST)
		c->audit_tokens = SV_AUDIT_BURST;
	c->audit_last_ns = now;
	if (c->audit_tokens < (double)len)
		return false;
	c->audit_tokens -= (double)len;
	return true;
}

/*
 * The event summing up c's left-out requests, if any, at time_ns (that of
 * the event it precedes: the lines stay in time order). Under audit_lock.
 */
static void audit_unlogged_locked(struct mntsnap_supervisor *sv, struct sv_container *c,
				  uint64_t time_ns)
{
	struct mntsnap_sv_event ev = { 0 };

	if (!c->unlogged)
		return;
	ev.time_ns = time_ns;
	ev.container = c->id;
	ev.rule = -2;
	ev.reason = "not logged";
	ev.unlogged = c->unlogged;
	c->unlogged = 0;
	sv->o.audit(&ev, sv->o.audit_data);
}

void mntsnap__sv_audit_unlogged(struct mntsnap_supervisor *sv, struct sv_container *c)
{
	if (!sv->o.audit)
		return;
	pthread_mutex_lock(&sv->audit_lock);
	audit_unlogged_locked(sv, c, clock_ns(CLOCK_REALTIME));
	pthread_mutex_unlock(&sv->audit_lock);
}

static void audit(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	struct mntsnap_sv_event ev = { 0 };
	char nr[48];

	if (!sv->o.audit)
		return;
	pthread_mutex_lock(&sv->audit_lock);
	ev.time_ns = clock_ns(CLOCK_REALTIME);
	ev.container = c->id;
	ev.pid = (int)q->n.pid;
	ev.syscall = syscall_name(q, nr, sizeof(nr));
	if (q->kind == SV_UMOUNT) {
		ev.target = q->target[0] ? q->target : NULL;
	} else if (q->sysname && q->n.data.nr != MNTSNAP_NR_move_mount) {
		ev.fstype = q->has_fstype ? q->fstype : NULL;
		ev.source = q->has_source ? q->source : NULL; /* open_tree */
	} else if (q->n.data.arch == NATIVE_ARCH &&
		   (q->n.data.nr == SYS_mount || q->n.data.nr == MNTSNAP_NR_move_mount)) {
		ev.fstype = mntsnap__sv_match_fstype(q);
		if (!ev.fstype && q->has_fstype)
			ev.fstype = q->fstype;
		ev.source = q->has_source ? q->source : NULL;
		ev.target = q->target[0] ? q->target : NULL;
	}
	ev.source_resolved = q->rsource[0] ? q->rsource : NULL;
	ev.target_resolved = q->rtarget[0] ? q->rtarget : NULL;
	ev.options_asked = q->asked;
	ev.options_applied = q->result ? NULL : q->applied;
	ev.rule = q->rule;
	ev.result = q->result;
	ev.mnt_id = q->result ? 0 : q->mnt_id; /* umount2: the mount removed */
	ev.reason = q->result || q->gone ? q->reason : NULL;
	ev.grant = q->result || !q->grant[0] ? NULL : q->grant;
	if (!changed_a_mount(q) && !audit_budget(c, mntsnap__sv_event_json_len(&ev))) {
		/* still answered as ever: only its line is left out, and counted */
		c->unlogged++;
	} else {
		audit_unlogged_locked(sv, c, ev.time_ns);
		sv->o.audit(&ev, sv->o.audit_data);
	}
	pthread_mutex_unlock(&sv->audit_lock);
}

int mntsnap__sv_audit_ready(struct mntsnap_supervisor *sv)
{
	int r;

	if (!sv->o.audit_ready)
		return 0;
	pthread_mutex_lock(&sv->audit_lock);
	r = sv->o.audit_ready(sv->o.audit_data);
	pthread_mutex_unlock(&sv->audit_lock);
	return r;
}

/*
 * The last stage: the mounts made for c kept track of, the audit line
 * written, then the caller answered.
 */
void mntsnap__sv_answer(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	struct mntsnap_k_seccomp_notif_resp resp = { 0 };

	resp.id = q->n.id;
	resp.error = q->result;
	track(c, q);
	/*
	 * Audited before the answer: once answered, the caller (and whoever
	 * watches it) may look for the line.
	 */
	audit(sv, c, q);
	/*
	 * Always answered, even when the caller seems gone: an unanswered
	 * caller would block forever, and SEND to a gone one is a harmless
	 * ENOENT.
	 */
	if (!q->answered)
		sv->sys.ioctl(sv->sys.ctx, c->fd, MNTSNAP_K_SECCOMP_IOCTL_NOTIF_SEND, &resp);
}
