// SPDX-License-Identifier: MIT
/* Target options shared by every command. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cli.h"
#include "intl.h"
#include "mntsnap-config.h"

#ifndef MNTSNAP_HAVE_JSON
#define MNTSNAP_HAVE_JSON 0
#endif
#ifndef MNTSNAP_HAVE_BLKID
#define MNTSNAP_HAVE_BLKID 0
#endif

static int need_value(int argc, char **argv, int i)
{
	if (i + 1 >= argc) {
		cli_fail(0, "%s needs a value", argv[i]);
		return -EINVAL;
	}
	return 0;
}

/*
 * --pid is findmnt's -N (--task): its TID read as findmnt reads it
 * (strtou32_or_err(): decimal, so "010" is 10 and "0x1" no number) and
 * refused in findmnt's words; a number findmnt reads but no process can
 * have (0, past pid_t) is refused here, where findmnt fails to open it.
 */
static int set_pid(struct cli_target *t, const char *val)
{
	int64_t n;
	int r = cli_parse_findmnt_num(val, true, 0, UINT32_MAX, &n);

	if (r) {
		cli_fail_ul(r == -ERANGE ? r : 0, "%s: '%s'", ul_gettext("invalid TID argument"), val);
		return -EINVAL;
	}
	if (!n || n > 0x7fffffff) {
		cli_fail(0, "--pid: not a valid pid: '%s'", val);
		return -EINVAL;
	}
	t->pid = (long)n;
	return 0;
}

int cli_target_set(struct cli_target *t, const char *opt, const char *val)
{
	uint64_t v;

	if (t->set) {
		cli_fail(0, "give one of --pid (-N), --ns, --ns-id");
		return -EINVAL;
	}
	t->set = true;
	if (!strcmp(opt, "--ns")) {
		t->ns_path = val;
		return 0;
	}
	if (!strcmp(opt, "--ns-id")) {
		if (cli_parse_u64(val, &v) || !v) {
			cli_fail(0, "--ns-id: not a valid ns-id: '%s'", val);
			return -EINVAL;
		}
		t->ns_id = v;
		return 0;
	}
	return set_pid(t, val);
}

int cli_target_arg(struct cli_target *t, int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	if (strcmp(a, "--pid") && strcmp(a, "--ns") && strcmp(a, "--ns-id"))
		return 0;
	if (need_value(argc, argv, *i))
		return -EINVAL;
	(*i)++;
	return cli_target_set(t, a, argv[*i]) ? -EINVAL : 1;
}

/* Is /proc the root of a procfs (the library's test)? */
static bool have_procfs(void)
{
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct statfs sf;
	struct stat st;
	bool ok;

	if (fd < 0)
		return false;
	ok = !fstatfs(fd, &sf) && sf.f_type == CLI_PROC_SUPER_MAGIC && !fstat(fd, &st) &&
	     st.st_ino == 1 /* PROC_ROOT_INO */;
	close(fd);
	return ok;
}

int cli_target_open(const struct cli_target *t, struct mntsnap_ns **ret_ns)
{
	int r;

	*ret_ns = NULL;
	if (!t->set)
		return 0;
	/*
	 * list's and stat's -N PID is the task's view, the mounts its root
	 * reaches (findmnt reads /proc/PID/mountinfo): only /proc/PID/root
	 * names that root. Without a procfs the library would answer the
	 * whole namespace, or, for a chroot()ed caller, its own view: neither
	 * is the task's, so say why there is none (findmnt: "can't read").
	 */
	if (t->pid && t->task_view && !have_procfs()) {
		cli_fail(0, "--pid %ld: no procfs at /proc: the task's table is what its root "
			    "reaches (/proc/PID/mountinfo), and only /proc/PID/root names that root",
			 t->pid);
		return -EOPNOTSUPP;
	}
	if (t->pid) {
		struct mntsnap_error lib = { 0 };

		/* findmnt -N's PID: as /proc numbers it, whatever our pid namespace */
		r = mntsnap_ns_open_proc_pid((int)t->pid, &lib, ret_ns);
		if (r && !strncmp(lib.msg, "pidfd_open(", 11)) {
			/* no pidfd_open here: the library names both steps */
			cli_fail(0, "--pid %ld: %s", t->pid, lib.msg);
		} else if (r) {
			struct mntsnap_error e = { 0 };
			char what[64];

			/* says which capability is missing, or that the process is gone */
			snprintf(what, sizeof(what), "--pid %ld", t->pid);
			mntsnap_ns_explain(r, what, &e);
			cli_fail(0, "%s", e.msg);
		}
	} else if (t->ns_path) {
		r = mntsnap_ns_open_path(t->ns_path, NULL, ret_ns);
		if (r)
			cli_fail(r, "--ns %s%s", t->ns_path,
				 r == -EINVAL ? " (not a mount namespace file)" : "");
	} else {
		r = mntsnap_ns_open_id(t->ns_id, NULL, ret_ns);
		if (r)
			cli_fail(r, "--ns-id %llu", (unsigned long long)t->ns_id);
	}
	return r;
}

void cli_target_close(struct mntsnap_ns *ns)
{
	mntsnap_ns_free(ns);
}

/* "self" of the procfs at /proc: the caller as it numbers it; -1 if none */
static long proc_self(void)
{
	char buf[32];
	ssize_t n;

	if (!have_procfs())
		return -1;
	n = readlink("/proc/self", buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/*
 * findmnt fills TID with the task whose /proc/PID/mountinfo it read: its
 * own for the live table, as /proc numbers it (libmount reads
 * /proc/self's number: in a pid namespace that kept its parent's /proc,
 * not getpid()'s), -N's task. --ns and --ns-id name a namespace, no
 * task: no TID.
 */
long cli_target_tid(const struct cli_target *t)
{
	long self;

	if (t->set)
		return t->pid;
	self = proc_self();
	return self > 0 ? self : getpid();
}

bool cli_pid_is_self(long pid)
{
	/* no procfs: no other numbering than ours */
	if (!have_procfs())
		return pid == getpid();
	return pid == proc_self();
}

bool cli_proc_numbers_own(void)
{
	char buf[4096], *p;
	FILE *f;
	size_t n;
	int k = 0;

	if (!have_procfs())
		return true;
	/* NSpid: our pid in each namespace from the procfs's down to ours */
	f = fopen("/proc/self/status", "re");
	if (!f)
		return false; /* no "self": we are in none of its namespaces */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "\nNSpid:");
	if (!p)
		return proc_self() == getpid(); /* before 4.1 */
	for (p += 7; *p && *p != '\n'; p++)
		k += (*p >= '0' && *p <= '9') && (p[-1] == '\t' || p[-1] == ' ');
	return k == 1;
}

int cli_under_id(const char *cmd, const struct mntsnap_ns *ns, const char *path,
		 uint64_t *ret_id)
{
	struct mntsnap_snapshot *one;
	struct mntsnap_mount m;
	int r = mntsnap_ns_stat_path(ns, path, MNTSNAP_F_ID, &one);

	if (r) {
		struct mntsnap_error e = { 0 };
		char what[64];

		/* a permission or a gone process: say which capability or that */
		if (ns && (r == -EPERM || r == -EACCES || r == -ESRCH)) {
			snprintf(what, sizeof(what), "%s: --under", cmd);
			mntsnap_ns_explain(r, what, &e);
			cli_fail(0, "%s", e.msg);
		} else {
			cli_fail(r, "%s: --under %s%s", cmd, path,
				 ns ? " (in the target namespace)" : "");
		}
		return r;
	}
	r = mntsnap_snapshot_get(one, 0, &m);
	if (!r)
		*ret_id = m.id;
	mntsnap_snapshot_free(one);
	if (r)
		cli_fail(r, "%s: --under %s", cmd, path);
	return r;
}

int cli_parse_backend(const char *s)
{
	if (!strcmp(s, "auto"))
		return MNTSNAP_BACKEND_AUTO;
	if (!strcmp(s, "statmount"))
		return MNTSNAP_BACKEND_STATMOUNT;
	if (!strcmp(s, "mountinfo"))
		return MNTSNAP_BACKEND_MOUNTINFO;
	return -EINVAL;
}

/*
 * The version, then the optional libraries this build has (+) and lacks
 * (-), so a bug report says which code paths the binary can take:
 * libseccomp for the library's mntsnap-seccomp.h adapter, json-c for
 * `seccomp --merge` (profile files), libcap for reading the caller's
 * capabilities (capget(2) without it), libblkid for list's tags (-e, -x,
 * LABEL=, the blkid columns). `mntsnap --version` and list/show/stat -V
 * (findmnt's option) print it.
 */
void cli_version(FILE *f)
{
	fprintf(f, "mntsnap %s\nfeatures: %clibseccomp %clibcap %cjson-c %clibblkid\n",
		mntsnap_version(), MNTSNAP_HAVE_LIBSECCOMP ? '+' : '-',
		MNTSNAP_HAVE_LIBCAP ? '+' : '-', MNTSNAP_HAVE_JSON ? '+' : '-',
		MNTSNAP_HAVE_BLKID ? '+' : '-');
}

/*
 * util-linux 2.38's safe_getenv(), through which libmount and libblkid
 * read every variable that names a file: a real root only (uid 0, the
 * effective ids the real ones), and only while dumpable. findmnt run by
 * anyone else reads the default files; so does mntsnap in its name.
 */
const char *cli_safe_getenv(const char *name)
{
	uid_t ruid = getuid();

	if (ruid != 0 || ruid != geteuid() || getgid() != getegid())
		return NULL;
	if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0)
		return NULL;
	/* NULL too where the kernel asked for a secure exec (AT_SECURE) */
	return secure_getenv(name);
}
