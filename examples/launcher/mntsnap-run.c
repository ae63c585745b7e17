// SPDX-License-Identifier: MIT
/*
 * mntsnap-run: a miniature OCI-style runtime, to show where mntsnap fits
 * in one and to test it that way.
 *
 *   mntsnap-run --rootfs DIR --profile SECCOMP.json --snapshot FILE
 *               [--parent-capture FILE] [--] COMMAND [ARG...]
 *
 * What it does, in a runtime's order:
 *  1. parent: builds the seccomp filter from the OCI profile (linux.seccomp
 *     of a config.json, or the seccomp object itself) rule by rule, as crun
 *     does: architectures first, then every name of every entry. Names of
 *     mntsnap's syscalls (statmount, listmount, ...) go to
 *     mntsnap_seccomp_rule_add() with the entry's action and argument
 *     conditions; the others to seccomp_rule_add_array(). So statmount is
 *     allowed on a libseccomp that does not know its name (2.5.4), for
 *     every ABI of the profile;
 *  2. clone() into new mount, pid, uts and ipc namespaces;
 *  3. child: mounts (rootfs bind, proc, tmpfs on /dev and /tmp),
 *     pivot_root; the mounts are now final, so it captures its own
 *     namespace and writes the snapshot to the pipe the parent passed
 *     (capture before exec, way (a)): nothing of the workload runs yet,
 *     so the table cannot have gone, unlike a capture from the parent
 *     after exec, which races a short-lived workload (-ESRCH);
 *  4. parent: reads it with mntsnap_snapshot_load_fd() and saves it to
 *     --snapshot (MNTSNAP_SAVE_NO_SYNC: a runtime's state lives on tmpfs);
 *     with --parent-capture also captures the child's namespace itself
 *     while the child waits (way (b), for create/start runtimes whose
 *     child blocks before exec anyway);
 *  5. parent: lets the child go; child: loads the filter
 *     (mntsnap_seccomp_load()) and execs COMMAND. Exit status: COMMAND's.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mntsnap.h"
#include "mntsnap-seccomp.h"
#include "../mntsnap/json-mini.h"

static const char usage_text[] =
	"usage: mntsnap-run --rootfs DIR --profile SECCOMP.json --snapshot FILE\n"
	"                   [--parent-capture FILE] [--] COMMAND [ARG...]\n"
	"Run COMMAND in new mount/pid/uts/ipc namespaces with DIR as its root, under\n"
	"the OCI seccomp profile (a config.json or its linux.seccomp object). The\n"
	"container's mount table, captured in the container before exec, is saved\n"
	"to FILE; --parent-capture: the parent also captures it while the child\n"
	"waits.\n";

struct run {
	const char *rootfs, *profile, *snapshot, *parent_capture;
	char **cmd;
	scmp_filter_ctx ctx;
	struct mntsnap_seccomp_rules *rules;
	int snap_w, go_r;
};

static int fail(const char *what, int err)
{
	fprintf(stderr, "mntsnap-run: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return -1;
}

/* ---- the profile -------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL, *p;

	if (!f)
		return NULL;
	for (;;) {
		p = realloc(buf, cap);
		if (!p)
			break;
		buf = p;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap) {
			*len = n;
			fclose(f);
			return buf;
		}
		cap *= 2;
	}
	free(buf);
	fclose(f);
	return NULL;
}

static unsigned long long num(const struct jm *v, unsigned long long def)
{
	return v && v->type == JM_NUMBER ? strtoull(v->str, NULL, 0) : def;
}

static int action_of(const char *a, unsigned errno_ret, uint32_t *ret)
{
	static const struct {
		const char *name;
		uint32_t act;
	} plain[] = {
		{ "SCMP_ACT_KILL", SCMP_ACT_KILL },
		{ "SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL },
		{ "SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS },
		{ "SCMP_ACT_TRAP", SCMP_ACT_TRAP },
		{ "SCMP_ACT_ALLOW", SCMP_ACT_ALLOW },
		{ "SCMP_ACT_LOG", SCMP_ACT_LOG },
	};

	if (!strcmp(a, "SCMP_ACT_ERRNO")) {
		*ret = SCMP_ACT_ERRNO(errno_ret);
		return 0;
	}
	if (!strcmp(a, "SCMP_ACT_TRACE")) {
		*ret = SCMP_ACT_TRACE(errno_ret);
		return 0;
	}
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(a, plain[i].name)) {
			*ret = plain[i].act;
			return 0;
		}
	return -EOPNOTSUPP; /* SCMP_ACT_NOTIFY needs a listener: not here */
}

static int op_of(const char *op)
{
	static const char *const ops[] = { "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",
					   "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT",
					   "SCMP_CMP_MASKED_EQ" };

	for (int i = 0; i < 7; i++)
		if (!strcmp(op, ops[i]))
			return SCMP_CMP_NE + i;
	return -EINVAL;
}

/* args[] of an entry; value is datum_a (the mask for MASKED_EQ), valueTwo datum_b. */
static int args_of(const struct jm *args, struct scmp_arg_cmp *out, unsigned *n)
{
	*n = 0;
	if (!args)
		return 0;
	if (args->type != JM_ARRAY || args->n > 6)
		return -EINVAL;
	for (size_t i = 0; i < args->n; i++) {
		const struct jm *op = jm_get(args->items[i], "op");
		int o = op && op->type == JM_STRING ? op_of(op->str) : -EINVAL;
		unsigned long long idx = num(jm_get(args->items[i], "index"), 6);

		if (o < 0 || idx > 5)
			return -EINVAL;
		out[i] = (struct scmp_arg_cmp){ .arg = (unsigned)idx, .op = (enum scmp_compare)o,
						.datum_a = num(jm_get(args->items[i], "value"), 0),
						.datum_b = num(jm_get(args->items[i], "valueTwo"), 0) };
	}
	*n = (unsigned)args->n;
	return 0;
}

/* "SCMP_ARCH_X86_64" -> libseccomp's token; 0 when it does not know it. */
static uint32_t arch_of(const char *s)
{
	char low[32];
	size_t i;

	if (strncmp(s, "SCMP_ARCH_", 10))
		return 0;
	for (i = 0; s[10 + i] && i < sizeof(low) - 1; i++)
		low[i] = (char)(s[10 + i] >= 'A' && s[10 + i] <= 'Z' ? s[10 + i] - 'A' + 'a' : s[10 + i]);
	low[i] = '\0';
	return seccomp_arch_resolve_name(low);
}

/* One name of one entry: mntsnap's syscalls to the rule list, the rest to ctx. */
static int add_name(struct run *r, const char *name, uint32_t act, uint32_t def, unsigned n,
		    const struct scmp_arg_cmp *args)
{
	int nr, e;

	if (act == def)
		return 0; /* libseccomp refuses it (-EACCES); runtimes skip it */
	e = mntsnap_seccomp_rule_add(r->rules, act, name, n, args);
	if (e != -ENOENT)
		return e;
	nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR) {
		/* as crun: a name this libseccomp does not know is skipped */
		return 0;
	}
	e = seccomp_rule_add_array(r->ctx, act, nr, n, args);
	return e == -EEXIST ? 0 : e;
}

static int add_entry(struct run *r, const struct jm *e, uint32_t def, unsigned def_errno)
{
	const struct jm *names = jm_get(e, "names"), *action = jm_get(e, "action");
	struct scmp_arg_cmp args[6];
	uint32_t act;
	unsigned n;
	int err;

	if (!names || names->type != JM_ARRAY || !action || action->type != JM_STRING)
		return -EINVAL;
	err = action_of(action->str, (unsigned)num(jm_get(e, "errnoRet"), def_errno), &act);
	if (!err)
		err = args_of(jm_get(e, "args"), args, &n);
	for (size_t i = 0; !err && i < names->n; i++) {
		if (names->items[i]->type != JM_STRING)
			return -EINVAL;
		err = add_name(r, names->items[i]->str, act, def, n, args);
		if (err)
			fprintf(stderr, "mntsnap-run: rule for %s: %s\n", names->items[i]->str,
				strerror(-err));
	}
	return err;
}

static int build_filter(struct run *r)
{
	char jerr[128];
	size_t len = 0;
	char *text = slurp(r->profile, &len);
	const struct jm *sc, *arches, *syscalls, *def;
	struct jm *root = NULL;
	uint32_t def_act;
	int e;

	if (!text)
		return fail(r->profile, errno ? errno : ENOMEM);
	e = jm_parse(text, len, &root, jerr, sizeof(jerr));
	free(text);
	if (e) {
		fprintf(stderr, "mntsnap-run: %s: %s\n", r->profile, jerr);
		return -1;
	}
	/* a config.json, or the linux.seccomp object alone */
	sc = jm_get(root, "linux") ? jm_get(jm_get(root, "linux"), "seccomp") : root;
	def = sc ? jm_get(sc, "defaultAction") : NULL;
	e = def && def->type == JM_STRING
		    ? action_of(def->str, (unsigned)num(jm_get(sc, "defaultErrnoRet"), EPERM), &def_act)
		    : -EINVAL;
	if (!e) {
		r->ctx = seccomp_init(def_act);
		r->rules = mntsnap_seccomp_rules_new();
		e = r->ctx && r->rules ? 0 : -ENOMEM;
	}
	/* architectures first, as crun does: the rules are independent of it */
	arches = e ? NULL : jm_get(sc, "architectures");
	for (size_t i = 0; arches && i < arches->n && !e; i++) {
		uint32_t tok = arches->items[i]->type == JM_STRING ? arch_of(arches->items[i]->str) : 0;

		e = tok ? seccomp_arch_add(r->ctx, tok) : 0;
		if (e == -EEXIST)
			e = 0;
	}
	syscalls = e ? NULL : jm_get(sc, "syscalls");
	for (size_t i = 0; syscalls && i < syscalls->n && !e; i++)
		e = add_entry(r, syscalls->items[i], def_act,
			      (unsigned)num(jm_get(sc, "defaultErrnoRet"), EPERM));
	jm_free(root);
	return e ? fail("the seccomp profile", e) : 0;
}

/* ---- the container ------------------------------------------------------------ */

static int mount_at(const char *root, const char *dir, const char *src, const char *type,
		    unsigned long flags, const char *data)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s%s", root, dir);
	mkdir(p, 0755);
	if (mount(src, p, type, flags, data))
		return fail(p, errno);
	return 0;
}

static int setup_mounts(const char *rootfs)
{
	/* nothing mounted here may reach the host */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return fail("make / private", errno);
	if (mount(rootfs, rootfs, NULL, MS_BIND | MS_REC, NULL))
		return fail("bind the rootfs", errno);
	if (mount_at(rootfs, "/proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) ||
	    mount_at(rootfs, "/dev", "tmpfs", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=64k") ||
	    mount_at(rootfs, "/tmp", "tmpfs", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m"))
		return -1;
	/* pivot_root(".", "."): the old root ends up on top, then goes */
	if (chdir(rootfs) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) ||
	    chdir("/"))
		return fail("pivot_root", errno);
	return 0;
}

/* Way (a): the table of this namespace, now final, to the parent. */
static int hand_over(int fd)
{
	MNTSNAP_CLEANUP(mntsnap_snapshot_freep) struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .error = &err);
	int e = mntsnap_capture(&o, &s);

	if (e)
		return fprintf(stderr, "mntsnap-run: capture: %s\n", err.msg), -1;
	e = mntsnap_snapshot_save_fd(s, fd);
	if (e)
		return fail("hand the snapshot over", e);
	return 0;
}

static int child_main(void *arg)
{
	struct run *r = arg;
	char go;
	int e;

	if (setup_mounts(r->rootfs) || hand_over(r->snap_w))
		_exit(126);
	/* EOF for the parent's loader: nothing else comes on this pipe */
	close(r->snap_w);
	if (read(r->go_r, &go, 1) != 1)
		_exit(126); /* the parent gave up */
	close(r->go_r);
	e = mntsnap_seccomp_load(r->ctx, r->rules);
	if (e) {
		fail("mntsnap_seccomp_load", e);
		_exit(126);
	}
	execv(r->cmd[0], r->cmd);
	fail(r->cmd[0], errno);
	_exit(127);
}

/* Way (b): the parent captures the child's namespace while it waits. */
static int parent_capture(pid_t pid, const char *path)
{
	MNTSNAP_CLEANUP(mntsnap_ns_freep) struct mntsnap_ns *ns = NULL;
	MNTSNAP_CLEANUP(mntsnap_snapshot_freep) struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_save_opts, so, .flags = MNTSNAP_SAVE_NO_SYNC, .error = &err);
	int e = mntsnap_ns_open_pid(pid, &err, &ns);

	if (!e) {
		MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .error = &err);

		e = mntsnap_capture(&o, &s);
	}
	if (!e)
		e = mntsnap_snapshot_save_with(s, path, &so);
	if (e)
		fprintf(stderr, "mntsnap-run: parent capture: %s\n", err.msg);
	return e;
}

static int receive(int fd, const char *path)
{
	MNTSNAP_CLEANUP(mntsnap_snapshot_freep) struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_save_opts, so, .flags = MNTSNAP_SAVE_NO_SYNC, .error = &err);
	int e = mntsnap_snapshot_load_fd(fd, &err, &s);

	if (!e)
		e = mntsnap_snapshot_save_with(s, path, &so);
	if (e)
		fprintf(stderr, "mntsnap-run: the container's snapshot: %s\n", err.msg);
	return e;
}

static int parse(int argc, char **argv, struct run *r)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--")) {
			i++;
			break;
		}
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(usage_text, stdout);
			exit(0);
		}
		if (i + 1 >= argc)
			break;
		if (!strcmp(o, "--rootfs"))
			r->rootfs = argv[++i];
		else if (!strcmp(o, "--profile"))
			r->profile = argv[++i];
		else if (!strcmp(o, "--snapshot"))
			r->snapshot = argv[++i];
		else if (!strcmp(o, "--parent-capture"))
			r->parent_capture = argv[++i];
		else
			break;
	}
	r->cmd = argv + i;
	if (!r->rootfs || !r->profile || !r->snapshot || i >= argc || argv[i][0] == '-') {
		fputs(usage_text, stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct run r = { 0 };
	const size_t stack_size = 256 * 1024;
	int snap[2], go[2], st, e;
	char *stack;
	pid_t pid;

	if (parse(argc, argv, &r) || build_filter(&r))
		return 2;
	if (pipe2(snap, O_CLOEXEC) || pipe2(go, O_CLOEXEC))
		return fail("pipe", errno), 2;
	r.snap_w = snap[1];
	r.go_r = go[0];
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		     -1, 0);
	if (stack == MAP_FAILED)
		return fail("stack", errno), 2;
	pid = clone(child_main, stack + stack_size,
		    CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | SIGCHLD, &r);
	if (pid < 0)
		return fail("clone", errno), 2;
	close(snap[1]);
	close(go[0]);
	e = receive(snap[0], r.snapshot);
	close(snap[0]);
	if (!e && r.parent_capture)
		e = parent_capture(pid, r.parent_capture);
	if (!e && write(go[1], "g", 1) != 1)
		e = -errno;
	close(go[1]); /* on failure: the child reads EOF and exits */
	if (waitpid(pid, &st, 0) != pid)
		return fail("waitpid", errno), 2;
	seccomp_release(r.ctx);
	mntsnap_seccomp_rules_free(r.rules);
	munmap(stack, stack_size);
	if (e)
		return 2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
