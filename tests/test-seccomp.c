// SPDX-License-Identifier: MIT
/*
 * seccomp: the syscall table against the installed libseccomp, and the
 * libseccomp adapter against the kernel (filters loaded in forked children,
 * results reported back over a pipe).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap-seccomp.h"
#include "sctable.h"
#include "uapi.h"

/* ---- the table vs libseccomp ---------------------------------------------- */

Test(seccomp, table_matches_libseccomp)
{
	const struct scmp_version *v = seccomp_version();
	int checked = 0, unknown = 0, arch_skipped = 0;

	for (int a = 0; a < MNTSNAP_SC_NARCH; a++) {
		const struct mntsnap_sc_arch *ar = &mntsnap_sc_arches[a];
		uint32_t tok;

		if (!ar->scmp_name) {
			cr_assert_eq(ar->scmp_token, 0, "%s: token without libseccomp name", ar->name);
			continue;
		}
		tok = seccomp_arch_resolve_name(ar->scmp_name);
		if (!tok) {
			arch_skipped++; /* e.g. loongarch64, m68k, sh on 2.5.x */
			continue;
		}
		cr_assert_eq(tok, ar->scmp_token, "%s: libseccomp token 0x%x, table 0x%x",
			     ar->name, tok, ar->scmp_token);
		for (int s = 0; s < MNTSNAP_SC_NSYS; s++) {
			const struct mntsnap_sc_sys *sc = &mntsnap_sc_table[s];
			int nr = seccomp_syscall_resolve_name_arch(tok, sc->name);

			if (nr == __NR_SCMP_ERROR) {
				unknown++;
				continue;
			}
			cr_assert_eq(nr, sc->nr[a], "%s on %s: libseccomp %d, table %d",
				     sc->name, ar->name, nr, sc->nr[a]);
			checked++;
		}
	}
	cr_log_info("libseccomp %u.%u.%u: %d numbers checked, %d (arch, name) pairs unknown "
		    "to it, %d arches it lacks",
		    v->major, v->minor, v->micro, checked, unknown, arch_skipped);
	/* x86_64..parisc64 all exist in 2.5.x; most of their names too. */
	cr_assert_gt(checked, 200, "only %d numbers checked", checked);
}

Test(seccomp, table_matches_uapi_h)
{
	int col = -1;

	for (int a = 0; a < MNTSNAP_SC_NARCH; a++)
		if (mntsnap_sc_arches[a].scmp_token == seccomp_arch_native())
			col = a;
	cr_assert_geq(col, 0, "native arch not in the table");
	for (int s = 0; s < MNTSNAP_SC_NSYS; s++) {
		const char *n = mntsnap_sc_table[s].name;
		long want = !strcmp(n, "statmount")	 ? MNTSNAP_NR_statmount
			    : !strcmp(n, "listmount")	 ? MNTSNAP_NR_listmount
			    : !strcmp(n, "open_tree")	 ? MNTSNAP_NR_open_tree
			    : !strcmp(n, "pidfd_open")	 ? MNTSNAP_NR_pidfd_open
			    : !strcmp(n, "mount_setattr") ? MNTSNAP_NR_mount_setattr
			    : !strcmp(n, "open_tree_attr") ? MNTSNAP_NR_open_tree_attr
							 : -1;

		if (want >= 0)
			cr_assert_eq(mntsnap_sc_table[s].nr[col], want, "%s: table %d, uapi.h %ld",
				     n, mntsnap_sc_table[s].nr[col], want);
	}
}

/* ---- adapter: argument and ordering errors ---------------------------------- */

Test(seccomp, bad_arguments)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));

	cr_assert_eq(mntsnap_seccomp_allow(NULL, MNTSNAP_SECCOMP_QUERY), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_allow(ctx, 0), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_allow(ctx, 3), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_allow_arches(ctx, MNTSNAP_SECCOMP_QUERY, NULL, 1), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_unknown_names(7), -EINVAL);
	seccomp_release(ctx);
}

Test(seccomp, foreign_arch_first_is_edom_on_old_libseccomp)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	int unknown = mntsnap_seccomp_unknown_names(MNTSNAP_SECCOMP_QUERY);
	int r;

	if (seccomp_arch_native() != SCMP_ARCH_X86_64)
		cr_skip_test("x86_64 only");
	cr_assert_eq(seccomp_arch_add(ctx, SCMP_ARCH_X86), 0);
	r = mntsnap_seccomp_allow(ctx, MNTSNAP_SECCOMP_QUERY);
	/* libseccomp that knows the names needs no raw rule: then it works. */
	if (unknown > 0)
		cr_assert_eq(r, -EDOM, "got %d", r);
	else
		cr_assert_eq(r, 0, "got %d", r);
	seccomp_release(ctx);
}

Test(seccomp, default_allow_adds_nothing)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	uint32_t x86 = SCMP_ARCH_X86;

	cr_assert_eq(mntsnap_seccomp_allow_arches(ctx, MNTSNAP_SECCOMP_FULL, &x86, 1), 0);
	cr_assert_eq(seccomp_arch_exist(ctx, SCMP_ARCH_X86), 0, "arch still added");
	seccomp_release(ctx);
}

/* ---- live filters ------------------------------------------------------------ */

struct probe {
	long listmount, listmount_err;
	long statmount, statmount_err;
	long getppid_err;
	long open_tree_err;
	long pidfd_open, pidfd_open_err;
	long i386_statmount; /* raw return of int 0x80 statmount(0,0,0,0) */
	uint64_t sb_magic;
	int adapter_rc;
};

enum { NO_ADAPTER = 0, ADAPT_QUERY = MNTSNAP_SECCOMP_QUERY, ADAPT_FULL = MNTSNAP_SECCOMP_FULL };

static long err_of(long r)
{
	return r < 0 ? errno : 0;
}

#if defined(__x86_64__) && !defined(__ILP32__)
static long int80(long nr, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory");
	return ret;
}
#define HAVE_INT80 1

/* ia32 emulation may be off (or the hypervisor may refuse int 0x80, as
 * some VMs do): probe getpid through it in a throwaway child. */
static bool int80_works(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		/* a refused int 0x80 is a SIGSEGV: die quietly, without an
		 * ASan build's handler reporting it as a bug */
		signal(SIGSEGV, SIG_DFL);
		_exit(int80(20, 0, 0, 0, 0) == getpid() ? 0 : 1);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
#endif

static void child_probe(int fd, int set, uint32_t def_action, bool i386)
{
	static union {
		struct mntsnap_k_statmount sm;
		char buf[4096];
	} u;
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = MNTSNAP_K_LSMT_ROOT };
	struct probe p = { 0 };
	uint64_t ids[64];
	uint32_t compat[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
	bool x86 = seccomp_arch_native() == SCMP_ARCH_X86_64;
	scmp_filter_ctx ctx = seccomp_init(def_action);

	/* Adapter first (it orders raw/arch/name work), then the base rules,
	 * which libseccomp adds to every arch in ctx by name. */
	if (set != NO_ADAPTER)
		p.adapter_rc = mntsnap_seccomp_allow_arches(ctx, set, compat, x86 ? 2 : 0);
	else if (x86)
		p.adapter_rc = seccomp_arch_add(ctx, SCMP_ARCH_X86) ?: seccomp_arch_add(ctx, SCMP_ARCH_X32);
	if (p.adapter_rc ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 0) ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(exit_group), 0) ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(exit), 0) ||
	    seccomp_load(ctx)) {
		if (!p.adapter_rc)
			p.adapter_rc = -1000;
		(void)!write(fd, &p, sizeof(p));
		_exit(1);
	}
	p.listmount = syscall(MNTSNAP_NR_listmount, &req, ids, 64, 0);
	p.listmount_err = err_of(p.listmount);
	if (p.listmount > 0) {
		req.mnt_id = ids[0];
		req.param = MNTSNAP_K_STATMOUNT_SB_BASIC;
		p.statmount = syscall(MNTSNAP_NR_statmount, &req, &u.sm, sizeof(u), 0);
	} else {
		/* still probe the filter: a bogus request reaches the kernel
		 * only if allowed (then EINVAL/ENOENT, not the filter's EPERM) */
		req.mnt_id = 1;
		p.statmount = syscall(MNTSNAP_NR_statmount, &req, &u.sm, sizeof(u), 0);
	}
	p.statmount_err = err_of(p.statmount);
	p.sb_magic = p.statmount == 0 ? u.sm.sb_magic : 0;
	p.getppid_err = err_of(syscall(SYS_getppid));
	p.open_tree_err = err_of(syscall(MNTSNAP_NR_open_tree, -1, "/nonexistent", 0));
	p.pidfd_open = syscall(MNTSNAP_NR_pidfd_open, 1, 0);
	p.pidfd_open_err = err_of(p.pidfd_open);
#ifdef HAVE_INT80
	if (i386)
		p.i386_statmount = int80(457, 0, 0, 0, 0);
#endif
	(void)!write(fd, &p, sizeof(p));
	_exit(0);
}

static struct probe run_probe(int set, uint32_t def_action, bool i386)
{
	struct probe p;
	int fds[2], st;
	pid_t pid;

	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		child_probe(fds[1], set, def_action, i386);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &p, sizeof(p)), (ssize_t)sizeof(p), "child sent no result");
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "child died (signal %d)", WTERMSIG(st));
	cr_assert_eq(p.adapter_rc, 0, "filter setup failed: %d", p.adapter_rc);
	return p;
}

static void require_statmount(void)
{
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = MNTSNAP_K_LSMT_ROOT };
	uint64_t id;

	if (syscall(MNTSNAP_NR_listmount, &req, &id, 1, 0) < 0)
		cr_skip_test("listmount unavailable here: %s", strerror(errno));
}

Test(seccomp, live_adapter_allows_query)
{
	struct probe p;

	require_statmount();
	p = run_probe(ADAPT_QUERY, SCMP_ACT_ERRNO(EPERM), false);
	cr_assert_gt(p.listmount, 0, "listmount: %s", strerror((int)p.listmount_err));
	cr_assert_eq(p.statmount, 0, "statmount: %s", strerror((int)p.statmount_err));
	cr_assert_neq(p.sb_magic, 0, "statmount returned no sb_magic");
	/* everything else stays denied */
	cr_assert_eq(p.getppid_err, EPERM);
	cr_assert_eq(p.open_tree_err, EPERM);
	cr_assert_eq(p.pidfd_open_err, EPERM);
}

Test(seccomp, live_without_adapter_denied)
{
	struct probe p;

	require_statmount();
	p = run_probe(NO_ADAPTER, SCMP_ACT_ERRNO(EPERM), false);
	cr_assert_lt(p.listmount, 0);
	cr_assert_eq(p.listmount_err, EPERM);
	cr_assert_eq(p.statmount_err, EPERM);
	cr_assert_eq(p.getppid_err, EPERM);
}

Test(seccomp, live_adapter_full_set)
{
	struct probe p;

	require_statmount();
	p = run_probe(ADAPT_FULL, SCMP_ACT_ERRNO(EPERM), false);
	cr_assert_gt(p.listmount, 0, "listmount: %s", strerror((int)p.listmount_err));
	cr_assert_eq(p.statmount, 0, "statmount: %s", strerror((int)p.statmount_err));
	/* open_tree reached the kernel: ENOENT for the missing path */
	cr_assert_eq(p.open_tree_err, ENOENT, "open_tree: %s", strerror((int)p.open_tree_err));
	cr_assert_geq(p.pidfd_open, 0, "pidfd_open: %s", strerror((int)p.pidfd_open_err));
	cr_assert_eq(p.getppid_err, EPERM);
}

/*
 * What compat ABIs get (documented in mntsnap-seccomp.h): with a libseccomp
 * that does not know the names, i386 statmount falls to the default action
 * (here ENOSYS); with one that does, it reaches the kernel (EFAULT for NULL).
 */
Test(seccomp, live_i386_gets_default_on_old_libseccomp)
{
#ifdef HAVE_INT80
	struct probe p;
	int unknown = mntsnap_seccomp_unknown_names(MNTSNAP_SECCOMP_QUERY);

	require_statmount();
	if (!int80_works())
		cr_skip_test("int 0x80 does not work here (no ia32 emulation)");
	p = run_probe(ADAPT_QUERY, SCMP_ACT_ERRNO(ENOSYS), true);
	cr_assert_gt(p.listmount, 0, "x86_64 listmount: %s", strerror((int)p.listmount_err));
	cr_log_info("i386 statmount under adapter: %ld (%d names unknown to libseccomp)",
		    p.i386_statmount, unknown);
	if (unknown > 0)
		cr_assert_eq(p.i386_statmount, -ENOSYS, "got %ld", p.i386_statmount);
	else
		cr_assert_eq(p.i386_statmount, -EFAULT, "got %ld", p.i386_statmount);
#else
	cr_skip_test("x86_64 only");
#endif
}

/* ---- the exported filter, simulated ------------------------------------------ */
/*
 * A tiny classic-BPF interpreter for what libseccomp emits (loads from
 * seccomp_data, scratch memory, AND, conditional jumps, returns). It lets
 * the test check what each ABI gets without executing that ABI: int 0x80
 * is not available everywhere (some VMs refuse it), and x32 needs a
 * kernel built with it. An opcode it does not know fails the test.
 */
static uint32_t bpf_run(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			cr_assert_lt(i->k + 4, sizeof(*d) + 1, "load past seccomp_data");
			memcpy(&a, (const char *)d + i->k, 4);
			break;
		case BPF_LD | BPF_MEM:
			a = mem[i->k % BPF_MEMWORDS];
			break;
		case BPF_LDX | BPF_MEM:
			x = mem[i->k % BPF_MEMWORDS];
			break;
		case BPF_ST:
			mem[i->k % BPF_MEMWORDS] = a;
			break;
		case BPF_STX:
			mem[i->k % BPF_MEMWORDS] = x;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= i->k;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_JMP | BPF_JA:
			pc += i->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & i->k) ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			cr_assert_fail("BPF opcode 0x%x not simulated", i->code);
		}
	}
	cr_assert_fail("filter fell off its end");
	return 0;
}

static struct sock_filter *export(scmp_filter_ctx ctx, size_t *ret_n)
{
	int fd = memfd_create("bpf", MFD_CLOEXEC);
	struct sock_filter *f;
	off_t len;

	cr_assert_geq(fd, 0);
	cr_assert_eq(seccomp_export_bpf(ctx, fd), 0);
	len = lseek(fd, 0, SEEK_END);
	cr_assert_gt(len, 0);
	f = malloc(len);
	cr_assert_eq(pread(fd, f, len, 0), len);
	close(fd);
	*ret_n = len / sizeof(*f);
	return f;
}

static uint32_t verdict(const struct sock_filter *f, size_t n, uint32_t audit_arch, int nr)
{
	struct seccomp_data d = { .nr = nr, .arch = audit_arch };

	return bpf_run(f, n, &d) & SECCOMP_RET_ACTION_FULL;
}

#define AUDIT_X86_64 0xc000003eU
#define AUDIT_I386 0x40000003U
#define X32_BIT 0x40000000

Test(seccomp, simulated_abis_after_adapter)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
	uint32_t compat[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
	uint32_t allow = SECCOMP_RET_ALLOW, deny = SECCOMP_RET_ERRNO;
	bool old = mntsnap_seccomp_unknown_names(MNTSNAP_SECCOMP_QUERY) > 0;
	struct sock_filter *f;
	size_t n;

	if (seccomp_arch_native() != SCMP_ARCH_X86_64)
		cr_skip_test("x86_64 only");
	cr_assert_eq(mntsnap_seccomp_allow_arches(ctx, MNTSNAP_SECCOMP_QUERY, compat, 2), 0);
	cr_assert_eq(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(getpid), 0), 0);
	f = export(ctx, &n);
	/* native: allowed whatever libseccomp knows */
	cr_assert_eq(verdict(f, n, AUDIT_X86_64, 457), allow);
	cr_assert_eq(verdict(f, n, AUDIT_X86_64, 458), allow);
	cr_assert_eq(verdict(f, n, AUDIT_X86_64, 428), deny, "open_tree not in query set");
	/* base rules added after the adapter cover every arch */
	cr_assert_eq(verdict(f, n, AUDIT_I386, 20), allow, "i386 getpid");
	cr_assert_eq(verdict(f, n, AUDIT_X86_64, X32_BIT | 39), allow, "x32 getpid");
	/* compat ABIs: allowed by name with a new libseccomp, default on 2.5.x */
	cr_assert_eq(verdict(f, n, AUDIT_I386, 457), old ? deny : allow);
	cr_assert_eq(verdict(f, n, AUDIT_X86_64, X32_BIT | 457), old ? deny : allow);
	cr_log_info("%zu BPF instructions; i386/x32 statmount: %s", n,
		    old ? "default action (libseccomp lacks the names)" : "allowed");
	free(f);
	seccomp_release(ctx);
}

/* ---- resolver ------------------------------------------------------------------ */

/* The token a caller names an ABI by: libseccomp's, else its AUDIT_ARCH. */
static uint32_t abi_id(const struct mntsnap_sc_arch *a)
{
	return a->scmp_token ? a->scmp_token : a->audit_arch;
}

Test(seccomp, resolve_every_abi_of_the_table)
{
	int n = 0;

	for (int a = 0; a < MNTSNAP_SC_NARCH; a++)
		for (int s = 0; s < MNTSNAP_SC_NSYS; s++) {
			const struct mntsnap_sc_sys *sc = &mntsnap_sc_table[s];
			int want = sc->nr[a] >= 0 ? sc->nr[a] : -ENOENT;

			cr_assert_eq(mntsnap_seccomp_resolve(sc->name, abi_id(&mntsnap_sc_arches[a])),
				     want, "%s on %s", sc->name, mntsnap_sc_arches[a].name);
			n++;
		}
	cr_assert_eq(n, 29 * MNTSNAP_SC_NSYS);
	/* the numbers seccomp_data.nr carries: x32 bit, MIPS offsets, alpha */
	cr_assert_eq(mntsnap_seccomp_resolve("statmount", SCMP_ARCH_X32), 0x40000000 + 457);
	cr_assert_eq(mntsnap_seccomp_resolve("statmount", SCMP_ARCH_MIPS), 4457);
	cr_assert_eq(mntsnap_seccomp_resolve("listmount", SCMP_ARCH_MIPSEL64N32), 6458);
	cr_assert_eq(mntsnap_seccomp_resolve("statmount", 0xc0009026 /* alpha */), 567);
	cr_assert_eq(mntsnap_seccomp_resolve("statmount", 0x400000f3 /* riscv32 */), 457);
}

Test(seccomp, resolve_native_other_names_and_errors)
{
	int native = -1;

	for (int a = 0; a < MNTSNAP_SC_NARCH; a++)
		if (mntsnap_sc_arches[a].scmp_token == seccomp_arch_native())
			native = a;
	cr_assert_geq(native, 0);
	cr_assert_eq(mntsnap_seccomp_resolve("statmount", SCMP_ARCH_NATIVE),
		     mntsnap_sc_table[0].nr[native]);
	/* names outside the table: asked to libseccomp, per ABI */
	cr_assert_eq(mntsnap_seccomp_resolve("getpid", SCMP_ARCH_NATIVE),
		     seccomp_syscall_resolve_name("getpid"));
	cr_assert_eq(mntsnap_seccomp_resolve("getpid", SCMP_ARCH_X86), 20);
	cr_assert_eq(mntsnap_seccomp_resolve("getpid", SCMP_ARCH_X86_64), 39);
	cr_assert_eq(mntsnap_seccomp_resolve("getpid", 0xc0009026 /* alpha: no libseccomp */), -ENOENT);
	cr_assert_eq(mntsnap_seccomp_resolve("no_such_call", SCMP_ARCH_NATIVE), -ENOENT);
	cr_assert_eq(mntsnap_seccomp_resolve(NULL, SCMP_ARCH_NATIVE), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_resolve("statmount", 0x12345678), -EINVAL);
	/* x32 is named by its libseccomp token, its audit value is x86_64's */
	cr_assert_eq(mntsnap_seccomp_resolve("statmount", 0xc000003e), 457);
}

Test(seccomp, rule_add_errors)
{
	struct mntsnap_seccomp_rules *r = mntsnap_seccomp_rules_new();
	struct scmp_arg_cmp ok = SCMP_A3(SCMP_CMP_EQ, 0);
	struct scmp_arg_cmp bad_idx = { .arg = 6, .op = SCMP_CMP_EQ };
	struct scmp_arg_cmp bad_op = { .arg = 0, .op = (enum scmp_compare)99 };
	struct scmp_arg_cmp seven[7];

	cr_assert_not_null(r);
	for (int i = 0; i < 7; i++)
		seven[i] = ok;
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, "statmount", 1, &ok), 0);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, "getpid", 0, NULL), -ENOENT);
	cr_assert_eq(mntsnap_seccomp_rule_add(NULL, SCMP_ACT_ALLOW, "statmount", 0, NULL), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, NULL, 0, NULL), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, "statmount", 1, NULL), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, "statmount", 7, seven), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, "statmount", 1, &bad_idx), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, "statmount", 1, &bad_op), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_NOTIFY, "statmount", 0, NULL), -EOPNOTSUPP);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, 0x12340000, "statmount", 0, NULL), -EOPNOTSUPP);
	cr_assert_eq(mntsnap_seccomp_export_bpf(NULL, r, 1), -EINVAL);
	cr_assert_eq(mntsnap_seccomp_load(NULL, r), -EINVAL);
	mntsnap_seccomp_rules_free(r);
	mntsnap_seccomp_rules_free(NULL);
}

Test(seccomp, cache_key)
{
	const struct scmp_version *v = seccomp_version();
	char buf[256], small[8], want[32];
	int n = mntsnap_seccomp_cache_key(buf, sizeof(buf));

	cr_assert_gt(n, 0);
	cr_assert_eq((size_t)n, strlen(buf));
	snprintf(want, sizeof(want), " libseccomp/%u.%u.%u", v->major, v->minor, v->micro);
	cr_assert_not_null(strstr(buf, want), "%s", buf);
	cr_assert_eq(strncmp(buf, "mntsnap-seccomp/", 16), 0, "%s", buf);
	cr_assert_eq(mntsnap_seccomp_cache_key(small, sizeof(small)), n, "snprintf-like length");
	cr_assert_eq(strlen(small), sizeof(small) - 1);
	cr_assert_eq(mntsnap_seccomp_cache_key(NULL, 0), n);
	cr_assert_eq(mntsnap_seccomp_cache_key(NULL, 4), -EINVAL);
	cr_log_info("cache key: %s", buf);
}

/* ---- rules: exported filter, simulated per ABI ---------------------------------- */

static bool swap_export;

static struct sock_filter *export_rules(scmp_filter_ctx ctx, const struct mntsnap_seccomp_rules *r,
					size_t *ret_n)
{
	int fd = memfd_create("bpf", MFD_CLOEXEC);
	struct sock_filter *f;
	off_t len;

	cr_assert_geq(fd, 0);
	cr_assert_eq(mntsnap_seccomp_export_bpf(ctx, r, fd), 0);
	len = lseek(fd, 0, SEEK_END);
	cr_assert_gt(len, 0);
	f = malloc(len);
	cr_assert_eq(pread(fd, f, len, 0), len);
	close(fd);
	*ret_n = len / sizeof(*f);
	for (size_t i = 0; swap_export && i < *ret_n; i++) {
		f[i].code = __builtin_bswap16(f[i].code);
		f[i].k = __builtin_bswap32(f[i].k);
	}
	return f;
}

/* seccomp_data for an ABI: argument i as that ABI's kernel lays it out. */
static uint32_t verdict_args(const struct sock_filter *f, size_t n, uint32_t audit, int nr,
			     const uint64_t *args)
{
	struct seccomp_data d = { .nr = nr, .arch = audit };

	for (int i = 0; i < 6; i++) {
		uint32_t lo = (uint32_t)args[i], hi = (uint32_t)(args[i] >> 32);
		bool le = audit & __AUDIT_ARCH_LE;
		uint32_t w[2] = { le ? lo : hi, le ? hi : lo };

		memcpy((char *)&d.args[i], w, 8);
	}
	return bpf_run(f, n, &d);
}

/* The OCI fragment's shape: statmount flags == 0 allowed, other flags
 * EINVAL; listmount (flags & ~1) == 0 allowed (value = mask, valueTwo = 0). */
static struct mntsnap_seccomp_rules *profile_rules(void)
{
	struct mntsnap_seccomp_rules *r = mntsnap_seccomp_rules_new();
	struct scmp_arg_cmp sm_ok = SCMP_A3(SCMP_CMP_EQ, 0), sm_bad = SCMP_A3(SCMP_CMP_NE, 0);
	struct scmp_arg_cmp lm_ok = SCMP_A3(SCMP_CMP_MASKED_EQ, ~1ULL, 0);
	struct scmp_arg_cmp lm_bad = SCMP_A3(SCMP_CMP_GT, 1);

	cr_assert_not_null(r);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, "statmount", 1, &sm_ok), 0);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ERRNO(EINVAL), "statmount", 1, &sm_bad), 0);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ALLOW, "listmount", 1, &lm_ok), 0);
	cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ERRNO(EINVAL), "listmount", 1, &lm_bad), 0);
	return r;
}

/* ABIs libseccomp (2.5.x included) lets one filter hold beside x86_64:
 * one byte order per filter, so the big-endian ones get their own. */
static const uint32_t many_arches[] = {
	SCMP_ARCH_X86, SCMP_ARCH_X32, SCMP_ARCH_AARCH64, SCMP_ARCH_ARM, SCMP_ARCH_MIPSEL,
	SCMP_ARCH_MIPSEL64N32, SCMP_ARCH_PPC64LE, SCMP_ARCH_RISCV64,
};
#define N_MANY (int)(sizeof(many_arches) / sizeof(many_arches[0]))
static const uint32_t be_arches[] = {
	SCMP_ARCH_PPC64, SCMP_ARCH_S390X, SCMP_ARCH_MIPS, SCMP_ARCH_MIPS64N32, SCMP_ARCH_PPC,
};

static void check_profile_abis(scmp_filter_ctx ctx, const struct mntsnap_seccomp_rules *r,
			       int want_abis)
{
	uint64_t a0[6] = { 0 }, a1[6] = { 0, 0, 0, 1 }, a2[6] = { 0, 0, 0, 2 };
	uint64_t hi[6] = { 0, 0, 0, 1ULL << 32 };
	uint32_t allow = SECCOMP_RET_ALLOW, einval = SECCOMP_RET_ERRNO | EINVAL;
	struct sock_filter *f;
	size_t n;
	int abis = 0;

	f = export_rules(ctx, r, &n);
	for (int a = 0; a < MNTSNAP_SC_NARCH; a++) {
		const struct mntsnap_sc_arch *ar = &mntsnap_sc_arches[a];
		int sm = mntsnap_sc_table[0].nr[a], lm = mntsnap_sc_table[1].nr[a];
		bool is64 = ar->scmp_token & __AUDIT_ARCH_64BIT;

		if (!ar->scmp_token || seccomp_arch_exist(ctx, ar->scmp_token) != 0)
			continue;
		abis++;
		cr_assert_eq(verdict_args(f, n, ar->audit_arch, sm, a0), allow, "%s statmount 0", ar->name);
		cr_assert_eq(verdict_args(f, n, ar->audit_arch, sm, a1), einval, "%s statmount 1", ar->name);
		cr_assert_eq(verdict_args(f, n, ar->audit_arch, lm, a0), allow, "%s listmount 0", ar->name);
		cr_assert_eq(verdict_args(f, n, ar->audit_arch, lm, a1), allow, "%s listmount 1", ar->name);
		cr_assert_eq(verdict_args(f, n, ar->audit_arch, lm, a2), einval, "%s listmount 2", ar->name);
		/* high word: compared on 64-bit ABIs only (32-bit ones have none) */
		cr_assert_eq(verdict_args(f, n, ar->audit_arch, sm, hi), is64 ? einval : allow,
			     "%s statmount 1<<32", ar->name);
		/* another syscall falls through to libseccomp's program */
		cr_assert_eq(verdict_args(f, n, ar->audit_arch, sm + 1000, a0),
			     SECCOMP_RET_ERRNO | ENOSYS, "%s other", ar->name);
	}
	cr_assert_eq(abis, want_abis);
	cr_log_info("%d ABIs, %zu BPF instructions", abis, n);
	free(f);
}

Test(seccomp, rules_every_abi_arches_added_before)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
	struct mntsnap_seccomp_rules *r;

	if (seccomp_arch_native() != SCMP_ARCH_X86_64)
		cr_skip_test("x86_64 only (the list of foreign arches)");
	for (size_t i = 0; i < sizeof(many_arches) / sizeof(many_arches[0]); i++)
		cr_assert_eq(seccomp_arch_add(ctx, many_arches[i]), 0, "arch %zu", i);
	r = profile_rules();
	check_profile_abis(ctx, r, 1 + N_MANY);
	mntsnap_seccomp_rules_free(r);
	seccomp_release(ctx);
}

Test(seccomp, rules_every_abi_arches_added_after)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
	struct mntsnap_seccomp_rules *r = profile_rules();

	if (seccomp_arch_native() != SCMP_ARCH_X86_64)
		cr_skip_test("x86_64 only (the list of foreign arches)");
	cr_assert_eq(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(getpid), 0), 0);
	for (size_t i = 0; i < sizeof(many_arches) / sizeof(many_arches[0]); i++)
		cr_assert_eq(seccomp_arch_add(ctx, many_arches[i]), 0, "arch %zu", i);
	check_profile_abis(ctx, r, 1 + N_MANY);
	mntsnap_seccomp_rules_free(r);
	seccomp_release(ctx);
}

Test(seccomp, rules_every_abi_big_endian)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
	struct mntsnap_seccomp_rules *r = profile_rules();
	int n = (int)(sizeof(be_arches) / sizeof(be_arches[0]));

	cr_assert_eq(seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE), 0);
	for (int i = 0; i < n; i++)
		cr_assert_eq(seccomp_arch_add(ctx, be_arches[i]), 0, "arch %d", i);
	/* exported in the filter's byte order, read back in ours */
	swap_export = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	check_profile_abis(ctx, r, n);
	swap_export = false;
	mntsnap_seccomp_rules_free(r);
	seccomp_release(ctx);
}

Test(seccomp, rules_none_is_libseccomps_program)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
	struct mntsnap_seccomp_rules *r = mntsnap_seccomp_rules_new();
	struct sock_filter *a, *b, *c;
	size_t na, nb, nc;

	cr_assert_eq(seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(getpid), 0), 0);
	a = export(ctx, &na);
	b = export_rules(ctx, NULL, &nb);
	c = export_rules(ctx, r, &nc);
	cr_assert_eq(na, nb);
	cr_assert_eq(na, nc);
	cr_assert_eq(memcmp(a, b, na * sizeof(*a)), 0);
	cr_assert_eq(memcmp(a, c, na * sizeof(*a)), 0);
	free(a);
	free(b);
	free(c);
	mntsnap_seccomp_rules_free(r);
	seccomp_release(ctx);
}

/* Every operator against a C reference, on a 64-bit and a 32-bit ABI, for
 * values around the datum in both words. */
static bool ref_cmp(int op, uint64_t v, uint64_t a, uint64_t b)
{
	switch (op) {
	case SCMP_CMP_NE: return v != a;
	case SCMP_CMP_LT: return v < a;
	case SCMP_CMP_LE: return v <= a;
	case SCMP_CMP_EQ: return v == a;
	case SCMP_CMP_GE: return v >= a;
	case SCMP_CMP_GT: return v > a;
	default: return (v & a) == b;
	}
}

Test(seccomp, rules_operators_match_reference)
{
	static const uint64_t data[] = { 0, 1, 5, 0xffffffffULL, 1ULL << 32, (1ULL << 32) | 5,
					 0x7e020000ULL, UINT64_MAX };
	const uint32_t abis[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X86, SCMP_ARCH_AARCH64 };
	int checked = 0;

	if (seccomp_arch_native() != SCMP_ARCH_X86_64)
		cr_skip_test("x86_64 only");
	for (int op = SCMP_CMP_NE; op <= SCMP_CMP_MASKED_EQ; op++)
		for (size_t di = 0; di < sizeof(data) / sizeof(data[0]); di++) {
			scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
			struct mntsnap_seccomp_rules *r = mntsnap_seccomp_rules_new();
			struct scmp_arg_cmp c = { .arg = 2, .op = op, .datum_a = data[di],
						  .datum_b = data[(di + 3) % 8] & data[di] };
			struct sock_filter *f;
			size_t n;

			cr_assert_eq(seccomp_arch_add(ctx, SCMP_ARCH_X86), 0);
			cr_assert_eq(seccomp_arch_add(ctx, SCMP_ARCH_AARCH64), 0);
			cr_assert_eq(mntsnap_seccomp_rule_add(r, SCMP_ACT_ERRNO(77), "listmount", 1, &c), 0);
			f = export_rules(ctx, r, &n);
			for (size_t ai = 0; ai < 3; ai++) {
				uint32_t audit = abis[ai];
				bool is64 = audit & __AUDIT_ARCH_64BIT;

				for (size_t vi = 0; vi < sizeof(data) / sizeof(data[0]); vi++)
					for (int d = -1; d <= 1; d++) {
						uint64_t args[6] = { 0 }, v = data[vi] + d;
						uint64_t m = is64 ? UINT64_MAX : 0xffffffffULL;
						bool want = ref_cmp(op, v & m, c.datum_a & m, c.datum_b & m);
						uint32_t got;

						args[2] = v;
						got = verdict_args(f, n, audit, 458, args);
						cr_assert_eq(got, want ? SECCOMP_RET_ERRNO | 77
								       : SECCOMP_RET_ERRNO | ENOSYS,
							     "op %d datum %#llx value %#llx abi %#x", op,
							     (unsigned long long)c.datum_a,
							     (unsigned long long)v, audit);
						checked++;
					}
			}
			free(f);
			mntsnap_seccomp_rules_free(r);
			seccomp_release(ctx);
		}
	cr_log_info("%d comparisons checked", checked);
}

/* ---- rules: loaded, native and x32 probes ------------------------------------ */

#if defined(__x86_64__) && !defined(__ILP32__)
/* An x32 syscall from this 64-bit process: the filter sees it (arch
 * x86_64, nr with the x32 bit) before the kernel decides whether it has
 * x32 at all (without, the allowed call answers ENOSYS). */
static long x32_syscall(long nr, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(0x40000000L | nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}
#define HAVE_X32_PROBE 1
#endif

struct rules_probe {
	int rc;
	long sm0, sm1, lm2, other;      /* -errno or >= 0 */
	long x32_sm0, x32_sm1, x32_other;
};

static long neg(long r)
{
	return r < 0 ? -errno : r;
}

static void rules_child(int fd, bool with_rules)
{
	static union {
		struct mntsnap_k_statmount sm;
		char buf[4096];
	} sm;
	struct rules_probe p = { 0 };
	struct mntsnap_k_mnt_id_req req = { .size = MNTSNAP_K_MNT_ID_REQ_SIZE_VER0, .mnt_id = MNTSNAP_K_LSMT_ROOT };
	uint64_t ids[4];
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	struct mntsnap_seccomp_rules *r = with_rules ? profile_rules() : NULL;

	/* arches after the rules: the order does not matter */
	p.rc = seccomp_arch_add(ctx, SCMP_ARCH_X86) ?: seccomp_arch_add(ctx, SCMP_ARCH_X32) ?:
	       seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 0) ?:
	       seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(exit_group), 0) ?:
	       mntsnap_seccomp_load(ctx, r);
	if (p.rc == 0) {
		p.sm0 = neg(syscall(MNTSNAP_NR_listmount, &req, ids, 4, 0));
		req.mnt_id = p.sm0 > 0 ? ids[0] : 1;
		req.param = MNTSNAP_K_STATMOUNT_SB_BASIC;
		p.sm0 = neg(syscall(MNTSNAP_NR_statmount, &req, &sm, sizeof(sm), 0));
		p.sm1 = neg(syscall(MNTSNAP_NR_statmount, &req, &sm, sizeof(sm), 1));
		p.lm2 = neg(syscall(MNTSNAP_NR_listmount, &req, ids, 4, 2));
		p.other = neg(syscall(SYS_getppid));
#ifdef HAVE_X32_PROBE
		p.x32_sm0 = x32_syscall(457, 0, 0, 0, 0);
		p.x32_sm1 = x32_syscall(457, 0, 0, 0, 1);
		p.x32_other = x32_syscall(110 /* getppid */, 0, 0, 0, 0);
#endif
	}
	(void)!write(fd, &p, sizeof(p));
	_exit(0);
}

static struct rules_probe run_rules_probe(bool with_rules)
{
	struct rules_probe p;
	int fds[2], st;
	pid_t pid;

	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		rules_child(fds[1], with_rules);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &p, sizeof(p)), (ssize_t)sizeof(p), "child sent no result");
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "child died (signal %d)", WTERMSIG(st));
	cr_assert_eq(p.rc, 0, "filter setup: %d", p.rc);
	return p;
}

Test(seccomp, rules_loaded_native_and_x32)
{
	struct rules_probe p, none;

	if (seccomp_arch_native() != SCMP_ARCH_X86_64)
		cr_skip_test("x86_64 only");
	require_statmount();
	p = run_rules_probe(true);
	none = run_rules_probe(false);
	/* native: flags 0 reach the kernel, others get the rule's EINVAL */
	cr_assert_eq(p.sm0, 0, "statmount flags 0: %ld", p.sm0);
	cr_assert_eq(p.sm1, -EINVAL, "statmount flags 1: %ld", p.sm1);
	cr_assert_eq(p.lm2, -EINVAL);
	cr_assert_eq(p.other, -EPERM);
	cr_assert_eq(none.sm0, -EPERM);
#ifdef HAVE_X32_PROBE
	/* x32: the rule's EINVAL for flags 1 proves the rule and its argument
	 * test matched the x32 number; flags 0 is allowed (the kernel then
	 * answers: ENOSYS without x32 support, EFAULT with it) */
	cr_assert_eq(p.x32_sm1, -EINVAL, "x32 statmount flags 1: %ld", p.x32_sm1);
	cr_assert(p.x32_sm0 == -ENOSYS || p.x32_sm0 == -EFAULT, "x32 statmount 0: %ld", p.x32_sm0);
	cr_assert_eq(p.x32_other, -EPERM, "x32 getppid: default action");
	cr_assert_eq(none.x32_sm0, -EPERM, "no rules: x32 statmount gets the default");
	cr_assert_eq(none.x32_sm1, -EPERM);
	cr_log_info("x32 statmount allowed by the rule, kernel answered %ld", p.x32_sm0);
#endif
}

Test(seccomp, rules_freep)
{
	struct mntsnap_seccomp_rules *r = mntsnap_seccomp_rules_new();

	cr_assert_not_null(r);
	mntsnap_seccomp_rules_freep(&r);
	cr_assert_null(r);
	mntsnap_seccomp_rules_freep(&r);
	mntsnap_seccomp_rules_freep(NULL);
	{
		MNTSNAP_CLEANUP(mntsnap_seccomp_rules_freep) struct mntsnap_seccomp_rules *q =
			mntsnap_seccomp_rules_new();

		cr_assert_eq(mntsnap_seccomp_rule_add(q, SCMP_ACT_ALLOW, "statmount", 0, NULL), 0);
	}
}
