// SPDX-License-Identifier: MIT
/*
 * The seccomp fragments mntsnap prints and merges, from seccomp/syscalls.csv
 * (compiled in as sctable.h). These rules are the only copy: the committed
 * fragments in seccomp/generated/ are this CLI's output (seccomp/gen.py
 * --cli), and the 'seccomp' suite fails if they differ from it.
 *
 * Only statmount and listmount are ever allowed for everyone: they show a
 * container what it can already read in /proc/self/mountinfo. They carry
 * no minKernel gate: before 6.8 the kernel itself answers ENOSYS for an
 * allowed syscall it lacks (what callers need to fall back), while a gate
 * would hand them the profile's EPERM; and containers/common ignores
 * minKernel anyway, so a gate could never be relied on.
 *
 * Everything else in the 'full' set (the mount API, setns, unshare,
 * pidfd_open, ioctl, statx) is something a profile may have kept from a
 * container on purpose: Docker format gates it on CAP_SYS_ADMIN (as moby's
 * and containerd's profiles gate the mount API and namespaces), OCI format
 * has no gate and gets it only when the caller says the container holds
 * CAP_SYS_ADMIN.
 */
#include <stdlib.h>
#include <string.h>

#include "seccomp-merge.h"
#include "sctable.h"

_Static_assert(MNTSNAP_SC_NSYS <= MNTSNAP__SC_MAXNAMES, "raise MNTSNAP__SC_MAXNAMES");

static const char comment_query[] = "mntsnap: allow statmount, listmount";
static const char comment_statmount[] = "mntsnap: allow statmount";
static const char comment_listmount[] = "mntsnap: allow listmount";
static const char comment_admin[] = "mntsnap: allow with CAP_SYS_ADMIN";

/* Docker compares "<major>.<minor>" only; older than 5.0 is never gated. */
static const char *min_kernel(const struct mntsnap_sc_sys *s)
{
	return atoi(s->since) >= 5 ? s->since : NULL;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool mntsnap__sc_is_query(const char *name)
{
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++)
		if (mntsnap_sc_table[i].query && !strcmp(name, mntsnap_sc_table[i].name))
			return true;
	return false;
}

const char *mntsnap__sc_since(const char *name)
{
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++)
		if (!strcmp(name, mntsnap_sc_table[i].name))
			return mntsnap_sc_table[i].since;
	return NULL;
}

static struct mntsnap__sc_entry *frag_add(struct mntsnap__sc_frag *f)
{
	struct mntsnap__sc_entry *e = &f->e[f->n++];

	memset(e, 0, sizeof(*e));
	return e;
}

void mntsnap__sc_build(struct mntsnap__sc_frag *f, int format, int set, bool admin,
		       mntsnap__sc_skip_fn skip, void *data)
{
	bool docker = format == MNTSNAP__SC_DOCKER;
	struct mntsnap__sc_entry *q;
	int first, n = 0;

	f->n = 0;
	q = frag_add(f);
	q->comment = docker ? comment_query : NULL;
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];

		if (s->query && !(skip && skip(s->name, data)))
			q->names[q->n++] = s->name;
	}
	/* name only what the rule holds: the profile may allow the other already */
	if (docker && q->n == 1)
		q->comment = !strcmp(q->names[0], "statmount") ? comment_statmount
							       : comment_listmount;
	first = f->n;
	if (set == MNTSNAP__SC_FULL && (docker || admin)) {
		for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
			const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];
			const char *mk = docker ? min_kernel(s) : NULL;
			struct mntsnap__sc_entry *e = NULL;

			if (s->query || (skip && skip(s->name, data)))
				continue;
			/* Docker: one entry per minKernel; OCI: one entry */
			for (int g = first; g < f->n; g++)
				if (str_eq(f->e[g].min_kernel, mk))
					e = &f->e[g];
			if (!e) {
				e = frag_add(f);
				e->comment = docker ? comment_admin : NULL;
				e->gated = docker;
				e->min_kernel = mk;
			}
			e->names[e->n++] = s->name;
		}
	}
	/* drop entries left without names */
	for (int i = 0; i < f->n; i++)
		if (f->e[i].n)
			f->e[n++] = f->e[i];
	f->n = n;
}
