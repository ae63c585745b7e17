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
