// SPDX-License-Identifier: MIT
/*
 * libseccomp adapter: allow rules for mntsnap's syscalls that survive a
 * libseccomp too old to know their names. See include/mntsnap-seccomp.h for
 * the ordering and what compat ABIs get.
 */
#include <errno.h>
#include <stdbool.h>

#include "mntsnap-seccomp.h"
#include "sctable.h"

static bool in_set(const struct mntsnap_sc_sys *s, int set)
{
	return set == MNTSNAP_SECCOMP_FULL || s->query;
}

static bool set_valid(int set)
{
	return set == MNTSNAP_SECCOMP_QUERY || set == MNTSNAP_SECCOMP_FULL;
}

/* Column of the native architecture in the table, -1 if it has none. */
static int native_column(void)
{
	uint32_t tok = seccomp_arch_native();

	for (int i = 0; i < MNTSNAP_SC_NARCH; i++)
		if (mntsnap_sc_arches[i].scmp_token == tok)
			return i;
	return -1;
}

/*
 * What counts is the library loaded now, not the headers we were built
 * with: resolve by name at run time.
 */
static bool name_known(const char *name)
{
	return seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR;
}

int mntsnap_seccomp_unknown_names(int set)
{
	int n = 0;

	if (!set_valid(set))
		return -EINVAL;
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++)
		if (in_set(&mntsnap_sc_table[i], set) && !name_known(mntsnap_sc_table[i].name))
			n++;
	return n;
}

/* Does ctx hold an architecture other than the native one? */
static bool has_foreign_arch(scmp_filter_ctx ctx)
{
	uint32_t native = seccomp_arch_native();

	for (int i = 0; i < MNTSNAP_SC_NARCH; i++) {
		uint32_t tok = mntsnap_sc_arches[i].scmp_token;

		if (tok && tok != native && seccomp_arch_exist(ctx, tok) == 0)
			return true;
	}
	return false;
}

/* Phase 1: raw native numbers for names the run-time library lacks. */
static int add_raw_rules(scmp_filter_ctx ctx, int set)
{
	int col = -1;

	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];
		int r;

		if (!in_set(s, set) || name_known(s->name))
			continue;
		if (col < 0)
			col = native_column();
		if (col < 0 || s->nr[col] < 0)
			return -EOPNOTSUPP;
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, s->nr[col], 0);
		/*
		 * 2.5.x maps the number to a name for every other arch in
		 * ctx and fails with -EFAULT when it cannot: tell the caller
		 * to pass those arches to us instead of adding them first.
		 */
		if (r == -EFAULT && has_foreign_arch(ctx))
			return -EDOM;
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_arches(scmp_filter_ctx ctx, const uint32_t *arches, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int r = seccomp_arch_add(ctx, arches[i]);

		if (r < 0 && r != -EEXIST)
			return r;
	}
	return 0;
}

/* Phase 3: by name, which libseccomp expands to every arch in ctx. */
static int add_name_rules(scmp_filter_ctx ctx, int set)
{
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];
		int nr, r;

		if (!in_set(s, set))
			continue;
		nr = seccomp_syscall_resolve_name(s->name);
		if (nr == __NR_SCMP_ERROR)
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (r < 0)
			return r;
	}
	return 0;
}

int mntsnap_seccomp_allow_arches(scmp_filter_ctx ctx, int set,
				 const uint32_t *arches, size_t n_arches)
{
	uint32_t def = 0;
	int r;

	if (!ctx || !set_valid(set) || (!arches && n_arches))
		return -EINVAL;
	r = seccomp_attr_get(ctx, SCMP_FLTATR_ACT_DEFAULT, &def);
	if (r < 0)
		return r;
	/* An allow rule equal to the default is refused (-EACCES) and moot. */
	if (def == SCMP_ACT_ALLOW)
		return add_arches(ctx, arches, n_arches);
	r = add_raw_rules(ctx, set);
	if (r < 0)
		return r;
	r = add_arches(ctx, arches, n_arches);
	if (r < 0)
		return r;
	return add_name_rules(ctx, set);
}

int mntsnap_seccomp_allow(scmp_filter_ctx ctx, int set)
{
	return mntsnap_seccomp_allow_arches(ctx, set, NULL, 0);
}
