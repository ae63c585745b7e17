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

#include "mntsnap.h"
#include "supervisor.h"
#include "sys.h"
#include "uapi.h"

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
		struct sv_mount m = { .id = q->mnt_id, .own_sb = q->own_sb };
		struct sv_mount *n;

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

static void audit(struct mntsnap_supervisor *sv, struct sv_container *c, struct sv_req *q)
{
	struct mntsnap_sv_event ev = { 0 };
	struct timespec ts;
	char nr[48];

	if (!sv->o.audit)
		return;
	pthread_mutex_lock(&sv->audit_lock);
	clock_gettime(CLOCK_REALTIME, &ts);
	ev.time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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
	sv->o.audit(&ev, sv->o.audit_data);
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
