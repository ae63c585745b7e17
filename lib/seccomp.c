// SPDX-License-Identifier: MIT
/*
 * libseccomp adapter for mntsnap's syscalls where the run-time libseccomp
 * is too old to know their names: the convenience allow calls (raw native
 * numbers, ordered so 2.5.x accepts them) and, for runtimes, a resolver
 * over the table and rules that become a BPF prefix in front of
 * libseccomp's program, so every ABI of the filter gets them. See
 * include/mntsnap-seccomp.h for the contracts.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "mntsnap.h"
#include "mntsnap-seccomp.h"
#include "sctable.h"
#include "sys.h"

static int resolve(const char *name, uint32_t arch);

static bool in_set(const struct mntsnap_sc_sys *s, int set)
{
	return set == MNTSNAP_SECCOMP_FULL || s->query;
}

static bool set_valid(int set)
{
	return set == MNTSNAP_SECCOMP_QUERY || set == MNTSNAP_SECCOMP_FULL;
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
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];
		int nr, r;

		if (!in_set(s, set) || name_known(s->name))
			continue;
		nr = resolve(s->name, SCMP_ARCH_NATIVE);
		if (nr < 0)
			return -EOPNOTSUPP;
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
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

/* ---- resolver --------------------------------------------------------- */

static int sys_index(const char *name)
{
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++)
		if (strcmp(mntsnap_sc_table[i].name, name) == 0)
			return i;
	return -1;
}

/*
 * Column of arch: SCMP_ARCH_* tokens first, then the AUDIT_ARCH value of an
 * ABI libseccomp has no token for (x32's AUDIT_ARCH is x86_64's, so it is
 * named by its libseccomp token only, never by its audit value).
 */
static int arch_column(uint32_t arch)
{
	if (arch == SCMP_ARCH_NATIVE)
		arch = seccomp_arch_native();
	for (int i = 0; i < MNTSNAP_SC_NARCH; i++)
		if (mntsnap_sc_arches[i].scmp_token == arch)
			return i;
	for (int i = 0; i < MNTSNAP_SC_NARCH; i++)
		if (!mntsnap_sc_arches[i].scmp_token && mntsnap_sc_arches[i].audit_arch == arch)
			return i;
	return -1;
}

static int resolve(const char *name, uint32_t arch)
{
	int col, sys, nr;

	if (!name)
		return -EINVAL;
	col = arch_column(arch);
	if (col < 0)
		return -EINVAL;
	sys = sys_index(name);
	if (sys >= 0)
		return mntsnap_sc_table[sys].nr[col] >= 0 ? mntsnap_sc_table[sys].nr[col] : -ENOENT;
	if (!mntsnap_sc_arches[col].scmp_token)
		return -ENOENT;
	nr = seccomp_syscall_resolve_name_arch(mntsnap_sc_arches[col].scmp_token, name);
	if (nr == __NR_SCMP_ERROR)
		return -ENOENT;
	return nr < 0 ? -EOPNOTSUPP : nr;
}

int mntsnap_seccomp_resolve(const char *name, uint32_t arch)
{
	return resolve(name, arch);
}

/* ---- rule list -------------------------------------------------------- */

#define MAX_ARGS 6

struct rule {
	uint32_t action;
	int sys;                /* row of the table */
	unsigned int n;
	struct scmp_arg_cmp args[MAX_ARGS];
};

struct mntsnap_seccomp_rules {
	struct rule *v;
	size_t n, cap;
};

struct mntsnap_seccomp_rules *mntsnap_seccomp_rules_new(void)
{
	return calloc(1, sizeof(struct mntsnap_seccomp_rules));
}

void mntsnap_seccomp_rules_free(struct mntsnap_seccomp_rules *rules)
{
	if (!rules)
		return;
	free(rules->v);
	free(rules);
}

/* The kernel's return values are libseccomp's actions; the low 16 bits
 * are data (errno, trace message). */
static int action_valid(uint32_t action)
{
	switch (action & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_KILL_THREAD:
	case SECCOMP_RET_TRAP:
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_TRACE:
	case SECCOMP_RET_LOG:
	case SECCOMP_RET_ALLOW:
		return 0;
	default:
		/* SECCOMP_RET_USER_NOTIF among them: a notify rule needs
		 * the listener seccomp_load() asks for, not this route */
		return -EOPNOTSUPP;
	}
}

static bool op_valid(int op)
{
	return op >= SCMP_CMP_NE && op <= SCMP_CMP_MASKED_EQ;
}

int mntsnap_seccomp_rule_add(struct mntsnap_seccomp_rules *rules, uint32_t action,
			     const char *name, unsigned int arg_cnt,
			     const struct scmp_arg_cmp *args)
{
	struct rule *r;
	int sys, ret;

	if (!rules || !name || (arg_cnt && !args) || arg_cnt > MAX_ARGS)
		return -EINVAL;
	for (unsigned int i = 0; i < arg_cnt; i++)
		if (args[i].arg >= MAX_ARGS || !op_valid(args[i].op))
			return -EINVAL;
	ret = action_valid(action);
	if (ret < 0)
		return ret;
	sys = sys_index(name);
	if (sys < 0)
		return -ENOENT;
	if (rules->n == rules->cap) {
		size_t cap = rules->cap ? 2 * rules->cap : 8;
		struct rule *v = realloc(rules->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		rules->v = v;
		rules->cap = cap;
	}
	r = &rules->v[rules->n++];
	memset(r, 0, sizeof(*r));
	r->action = action;
	r->sys = sys;
	r->n = arg_cnt;
	if (arg_cnt)
		memcpy(r->args, args, arg_cnt * sizeof(*args));
	return 0;
}

/* ---- the BPF prefix ----------------------------------------------------- */
/*
 * Classic BPF jumps forward only, conditional ones by at most 255. The
 * prefix is written with labels: conditional jumps only ever reach a label
 * a few instructions ahead (inside one comparison), longer ones go
 * through BPF_JA, whose offset is 32 bits. Labels are resolved at the end.
 */
#define FALL (-1)

struct gen {
	struct sock_filter *ins;
	int *jt, *jf, *ja;      /* label per instruction, FALL for none */
	size_t n, cap;
	size_t *pos;            /* label -> instruction index */
	size_t nlab, labcap;
	int err;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static void emit(struct gen *g, uint16_t code, uint32_t k, int jt, int jf, int ja)
{
	if (g->err)
		return;
	if (g->n == g->cap) {
		/* the four arrays grow together, from the same old size */
		size_t c1 = g->cap, c2 = g->cap, c3 = g->cap, c4 = g->cap;

		if (grow((void **)&g->ins, &c1, g->n + 1, sizeof(*g->ins)) ||
		    grow((void **)&g->jt, &c2, g->n + 1, sizeof(int)) ||
		    grow((void **)&g->jf, &c3, g->n + 1, sizeof(int)) ||
		    grow((void **)&g->ja, &c4, g->n + 1, sizeof(int))) {
			g->err = -ENOMEM;
			return;
		}
		g->cap = c1;
	}
	g->ins[g->n] = (struct sock_filter){ .code = code, .k = k };
	g->jt[g->n] = jt;
	g->jf[g->n] = jf;
	g->ja[g->n] = ja;
	g->n++;
}

static int label(struct gen *g)
{
	if (g->err)
		return 0;
	if (grow((void **)&g->pos, &g->labcap, g->nlab + 1, sizeof(*g->pos))) {
		g->err = -ENOMEM;
		return 0;
	}
	g->pos[g->nlab] = SIZE_MAX;
	return (int)g->nlab++;
}

static void place(struct gen *g, int l)
{
	if (!g->err)
		g->pos[l] = g->n;
}

static void ld(struct gen *g, uint32_t off)
{
	emit(g, BPF_LD | BPF_W | BPF_ABS, off, FALL, FALL, FALL);
}

static void jmp(struct gen *g, uint16_t op, uint32_t k, int jt, int jf)
{
	emit(g, BPF_JMP | op | BPF_K, k, jt, jf, FALL);
}

static void ja(struct gen *g, int l)
{
	emit(g, BPF_JMP | BPF_JA, 0, FALL, FALL, l);
}

static void ret(struct gen *g, uint32_t k)
{
	emit(g, BPF_RET | BPF_K, k, FALL, FALL, FALL);
}

static int resolve_labels(struct gen *g)
{
	for (size_t i = 0; i < g->n; i++) {
		int l[3] = { g->jt[i], g->jf[i], g->ja[i] };
		size_t off[3] = { 0, 0, 0 };

		for (int j = 0; j < 3; j++) {
			if (l[j] == FALL)
				continue;
			if (g->pos[l[j]] == SIZE_MAX || g->pos[l[j]] <= i)
				return -EFAULT; /* a bug here, never the caller's */
			off[j] = g->pos[l[j]] - i - 1;
		}
		if (off[0] > 255 || off[1] > 255)
			return -EFAULT;
		g->ins[i].jt = (uint8_t)off[0];
		g->ins[i].jf = (uint8_t)off[1];
		if (l[2] != FALL)
			g->ins[i].k = (uint32_t)off[2];
	}
	return 0;
}

struct abi {
	uint32_t audit;
	bool is64, le;
	int col;
};

/* One 32-bit half of argument i in seccomp_data. */
static uint32_t arg_off(const struct abi *a, unsigned int i, bool hi)
{
	return offsetof(struct seccomp_data, args) + 8 * i + ((hi != !a->le) ? 4 : 0);
}

/*
 * Unsigned "arg > d" (strict) or "arg >= d", jumping to ok or f. With the
 * 64-bit ABIs the high word decides unless it is equal.
 */
static void cmp_gt(struct gen *g, const struct abi *a, unsigned int i, uint64_t d,
		   bool strict, int ok, int f)
{
	uint16_t lo_op = strict ? BPF_JGT : BPF_JGE;

	if (a->is64) {
		ld(g, arg_off(a, i, true));
		jmp(g, BPF_JGT, (uint32_t)(d >> 32), ok, FALL);
		jmp(g, BPF_JEQ, (uint32_t)(d >> 32), FALL, f);
	}
	ld(g, arg_off(a, i, false));
	jmp(g, lo_op, (uint32_t)d, ok, f);
}

/* (arg & mask) == v, jumping to ok or f; EQ/NE use mask ~0. */
static void cmp_eq(struct gen *g, const struct abi *a, unsigned int i, uint64_t mask,
		   uint64_t v, int ok, int f)
{
	if (a->is64) {
		ld(g, arg_off(a, i, true));
		if ((uint32_t)(mask >> 32) != UINT32_MAX)
			emit(g, BPF_ALU | BPF_AND | BPF_K, (uint32_t)(mask >> 32), FALL, FALL, FALL);
		jmp(g, BPF_JEQ, (uint32_t)((v & mask) >> 32), FALL, f);
	}
	ld(g, arg_off(a, i, false));
	if ((uint32_t)mask != UINT32_MAX)
		emit(g, BPF_ALU | BPF_AND | BPF_K, (uint32_t)mask, FALL, FALL, FALL);
	jmp(g, BPF_JEQ, (uint32_t)(v & mask), ok, f);
}

/* One condition: falls through when it holds, jumps to fail otherwise. */
static void gen_cond(struct gen *g, const struct abi *a, const struct scmp_arg_cmp *c, int fail)
{
	int ok = label(g), f = label(g);

	switch (c->op) {
	case SCMP_CMP_EQ:
		cmp_eq(g, a, c->arg, UINT64_MAX, c->datum_a, ok, f);
		break;
	case SCMP_CMP_NE:
		cmp_eq(g, a, c->arg, UINT64_MAX, c->datum_a, f, ok);
		break;
	case SCMP_CMP_GT:
		cmp_gt(g, a, c->arg, c->datum_a, true, ok, f);
		break;
	case SCMP_CMP_GE:
		cmp_gt(g, a, c->arg, c->datum_a, false, ok, f);
		break;
	case SCMP_CMP_LT:
		cmp_gt(g, a, c->arg, c->datum_a, false, f, ok);
		break;
	case SCMP_CMP_LE:
		cmp_gt(g, a, c->arg, c->datum_a, true, f, ok);
		break;
	case SCMP_CMP_MASKED_EQ:
	default:
		cmp_eq(g, a, c->arg, c->datum_a, c->datum_b, ok, f);
		break;
	}
	place(g, f);
	ja(g, fail);
	place(g, ok);
}

static void gen_rule(struct gen *g, const struct abi *a, const struct rule *r)
{
	int nr = mntsnap_sc_table[r->sys].nr[a->col];
	int next, go;

	if (nr < 0)
		return;
	next = label(g);
	go = label(g);
	ld(g, offsetof(struct seccomp_data, nr));
	jmp(g, BPF_JEQ, (uint32_t)nr, go, FALL);
	ja(g, next);
	place(g, go);
	for (unsigned int i = 0; i < r->n; i++)
		gen_cond(g, a, &r->args[i], next);
	ret(g, r->action);
	place(g, next);
}

static void gen_abi(struct gen *g, const struct abi *a, const struct mntsnap_seccomp_rules *rules)
{
	int next = label(g), in = label(g);

	ld(g, offsetof(struct seccomp_data, arch));
	jmp(g, BPF_JEQ, a->audit, in, FALL);
	ja(g, next);
	place(g, in);
	for (size_t i = 0; i < rules->n; i++)
		gen_rule(g, a, &rules->v[i]);
	place(g, next);
}

/*
 * The ABIs ctx holds, as the kernel reports them. Word size and byte
 * order come from the libseccomp token, which for x32 (a 32-bit ABI that
 * the kernel reports as x86_64) differs from the audit value, so x32
 * arguments are compared on 32 bits as libseccomp compares them.
 */
static void gen_prefix(struct gen *g, scmp_filter_ctx ctx, const struct mntsnap_seccomp_rules *rules)
{
	for (int i = 0; i < MNTSNAP_SC_NARCH; i++) {
		const struct mntsnap_sc_arch *sa = &mntsnap_sc_arches[i];
		struct abi a = {
			.audit = sa->audit_arch,
			.is64 = sa->scmp_token & __AUDIT_ARCH_64BIT,
			.le = sa->scmp_token & __AUDIT_ARCH_LE,
			.col = i,
		};

		if (!sa->scmp_token || seccomp_arch_exist(ctx, sa->scmp_token) != 0)
			continue;
		gen_abi(g, &a, rules);
	}
}

static void gen_free(struct gen *g)
{
	free(g->ins);
	free(g->jt);
	free(g->jf);
	free(g->ja);
	free(g->pos);
}

/* libseccomp's program for ctx, through a memfd (2.5.x has no in-memory
 * export). */
static int export_seccomp(scmp_filter_ctx ctx, struct sock_filter **ret_f, size_t *ret_n)
{
	int fd = memfd_create("mntsnap-bpf", MFD_CLOEXEC);
	struct sock_filter *f = NULL;
	off_t len;
	int r;

	if (fd < 0)
		return -errno;
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		goto out;
	len = lseek(fd, 0, SEEK_END);
	if (len <= 0 || len % sizeof(*f)) {
		r = len < 0 ? -errno : -EIO;
		goto out;
	}
	f = malloc(len);
	if (!f) {
		r = -ENOMEM;
		goto out;
	}
	if (pread(fd, f, len, 0) != len) {
		r = -EIO;
		free(f);
		goto out;
	}
	*ret_f = f;
	*ret_n = len / sizeof(*f);
	r = 0;
out:
	close(fd);
	return r;
}

/* Are ctx's ABIs of the other byte order than this machine? */
static bool filter_swapped(scmp_filter_ctx ctx)
{
	bool host_le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

	for (int i = 0; i < MNTSNAP_SC_NARCH; i++) {
		uint32_t tok = mntsnap_sc_arches[i].scmp_token;

		if (tok && seccomp_arch_exist(ctx, tok) == 0)
			return !!(tok & __AUDIT_ARCH_LE) != host_le;
	}
	return false;
}

/* The whole program: the prefix, then libseccomp's. */
static int build(scmp_filter_ctx ctx, const struct mntsnap_seccomp_rules *rules,
		 struct sock_filter **ret_f, size_t *ret_n)
{
	struct gen g = { 0 };
	struct sock_filter *lib = NULL, *all;
	size_t nlib = 0;
	int r;

	if (!ctx)
		return -EINVAL;
	r = export_seccomp(ctx, &lib, &nlib);
	if (r < 0)
		return r;
	if (rules && rules->n)
		gen_prefix(&g, ctx, rules);
	r = g.err ?: resolve_labels(&g);
	if (r < 0)
		goto out;
	if (g.n + nlib > BPF_MAXINSNS) {
		r = -E2BIG;
		goto out;
	}
	all = malloc((g.n + nlib) * sizeof(*all));
	if (!all) {
		r = -ENOMEM;
		goto out;
	}
	if (g.n)
		memcpy(all, g.ins, g.n * sizeof(*all));
	/* libseccomp writes the program in the byte order of the filter's
	 * ABIs (one order per filter), for loading on such a machine */
	if (g.n && filter_swapped(ctx))
		for (size_t i = 0; i < g.n; i++) {
			all[i].code = __builtin_bswap16(all[i].code);
			all[i].k = __builtin_bswap32(all[i].k);
		}
	memcpy(all + g.n, lib, nlib * sizeof(*all));
	*ret_f = all;
	*ret_n = g.n + nlib;
out:
	gen_free(&g);
	free(lib);
	return r;
}

int mntsnap_seccomp_export_bpf(scmp_filter_ctx ctx, const struct mntsnap_seccomp_rules *rules,
			       int fd)
{
	struct sock_filter *f;
	size_t n, done = 0;
	int r;

	if (!ctx || fd < 0)
		return -EINVAL;
	r = build(ctx, rules, &f, &n);
	if (r < 0)
		return r;
	while (done < n * sizeof(*f)) {
		ssize_t w = write(fd, (const char *)f + done, n * sizeof(*f) - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = w < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)w;
	}
	free(f);
	return r;
}

static int attr_flag(scmp_filter_ctx ctx, enum scmp_filter_attr attr, unsigned flag)
{
	uint32_t v = 0;

	return seccomp_attr_get(ctx, attr, &v) == 0 && v ? flag : 0;
}

int mntsnap_seccomp_load(scmp_filter_ctx ctx, const struct mntsnap_seccomp_rules *rules)
{
	struct sock_filter *f;
	struct sock_fprog prog;
	unsigned flags;
	size_t n;
	long r;

	r = build(ctx, rules, &f, &n);
	if (r < 0)
		return (int)r;
	prog.len = (unsigned short)n;
	prog.filter = f;
	flags = attr_flag(ctx, SCMP_FLTATR_CTL_TSYNC, SECCOMP_FILTER_FLAG_TSYNC) |
		attr_flag(ctx, SCMP_FLTATR_CTL_LOG, SECCOMP_FILTER_FLAG_LOG) |
		attr_flag(ctx, SCMP_FLTATR_CTL_SSB, SECCOMP_FILTER_FLAG_SPEC_ALLOW);
	r = 0;
	if (attr_flag(ctx, SCMP_FLTATR_CTL_NNP, 1))
		r = mntsnap__sys_prctl(PR_SET_NO_NEW_PRIVS, 1);
	if (r >= 0)
		r = mntsnap__sys_seccomp(SECCOMP_SET_MODE_FILTER, flags, &prog);
	free(f);
	/* TSYNC answers the id of a thread it could not synchronise */
	if (r > 0)
		return -ESRCH;
	return (int)r;
}

/* ---- cache key ---------------------------------------------------------- */

/* Bump when the prefix's shape changes for the same rules. */
#define PREFIX_FORMAT 1

static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 16777619u;
	return h;
}

static uint32_t table_hash(void)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < MNTSNAP_SC_NARCH; i++) {
		h = fnv(h, &mntsnap_sc_arches[i].scmp_token, sizeof(uint32_t));
		h = fnv(h, &mntsnap_sc_arches[i].audit_arch, sizeof(uint32_t));
	}
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		h = fnv(h, mntsnap_sc_table[i].name, strlen(mntsnap_sc_table[i].name) + 1);
		h = fnv(h, mntsnap_sc_table[i].nr, sizeof(mntsnap_sc_table[i].nr));
	}
	return h;
}

int mntsnap_seccomp_cache_key(char *buf, size_t size)
{
	const struct scmp_version *v = seccomp_version();

	if (!buf && size)
		return -EINVAL;
	return snprintf(buf, size, "mntsnap-seccomp/%d mntsnap/%d.%d table/%dx%d-%08x libseccomp/%u.%u.%u",
			PREFIX_FORMAT, MNTSNAP_VERSION_MAJOR, MNTSNAP_VERSION_MINOR,
			MNTSNAP_SC_NARCH, MNTSNAP_SC_NSYS, table_hash(),
			v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
}

void mntsnap_seccomp_rules_freep(struct mntsnap_seccomp_rules **p)
{
	if (p) {
		mntsnap_seccomp_rules_free(*p);
		*p = NULL;
	}
}
