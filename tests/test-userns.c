// SPDX-License-Identifier: MIT
/*
 * Rootless containers: a target whose mount namespace is owned by a user
 * namespace an unprivileged uid made (unshare -U -m, as podman/crun do),
 * read by that uid without capabilities (the helper joins the user
 * namespace first), refused to another uid with the missing capability
 * named, and entered by root without joining. Every test first enters a
 * private mount namespace with a tmpfs on BASE; the targets unshare from
 * there, so nothing reaches the host's mounts.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "sys.h"
#include "sys-seam.h"

#define BASE "/tmp/mntsnap-userns-test"
#define NOBODY 65534
#define OTHER 65533
#define CAP_SYS_ADMIN_BIT (1ULL << 21)

struct target {
	pid_t pid;
	int ctl; /* write end: closing it ends the target */
};

static void die_child(int ready, const char *what)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "e%s: %s", what, strerror(errno));

	if (write(ready, msg, (size_t)n) < 0)
		_exit(2);
	_exit(1);
}

static void write_text(int ready, const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		die_child(ready, path);
	close(fd);
}

/* Become uid/gid id for good (no way back to root, no capabilities). */
static int become(uid_t id)
{
	if (setgroups(0, NULL) || setresgid(id, id, id) || setresuid(id, id, id))
		return -errno;
	/* a uid change clears both: keep /proc/PID/ files ours, die with the test */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
		return -errno;
	return 0;
}

/*
 * The rootless container, as uid: its own user namespace mapping root to
 * uid, its own mount namespace owned by it, a tmpfs with a marker.
 */
static void target_main(int ready, int ctl, uid_t uid)
{
	char map[64], c;

	if (become(uid))
		die_child(ready, "become");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		char msg[128];
		int n = snprintf(msg, sizeof(msg), "sunshare(CLONE_NEWUSER|CLONE_NEWNS) as uid %u: %s",
				 (unsigned)uid, strerror(errno));

		if (write(ready, msg, (size_t)n) < 0)
			_exit(2);
		_exit(0);
	}
	snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
	write_text(ready, "/proc/self/setgroups", "deny");
	write_text(ready, "/proc/self/uid_map", map);
	write_text(ready, "/proc/self/gid_map", map);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		die_child(ready, "make / private");
	if (mount("rootless", BASE "/t", "tmpfs", 0, "size=64k,mode=755"))
		die_child(ready, "tmpfs");
	write_text(ready, BASE "/t/marker", "rootless");
	if (write(ready, "k", 1) != 1)
		_exit(1);
	close(ready);
	while (read(ctl, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Start a rootless target owned by uid; skips if the kernel forbids it. */
static struct target target_start(uid_t uid)
{
	int rp[2], cp[2];
	struct target t;
	char msg[256];
	ssize_t n;

	cr_assert_eq(pipe2(rp, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(cp, O_CLOEXEC), 0);
	t.pid = fork();
	cr_assert(t.pid >= 0);
	if (t.pid == 0) {
		close(rp[0]);
		close(cp[1]);
		target_main(rp[1], cp[0], uid);
	}
	close(rp[1]);
	close(cp[0]);
	t.ctl = cp[1];
	n = read(rp[0], msg, sizeof(msg) - 1);
	close(rp[0]);
	msg[n > 0 ? n : 0] = '\0';
	if (msg[0] == 's') {
		close(t.ctl);
		waitpid(t.pid, NULL, 0);
		cr_skip_test("unprivileged user namespaces are not allowed here: %s", msg + 1);
	}
	cr_assert_eq(msg[0], 'k', "rootless target did not start: %s", n > 0 ? msg + 1 : "died");
	return t;
}

static void target_stop(struct target *t)
{
	/* closing ctl ends it even when it is another uid's to kill */
	close(t->ctl);
	kill(t->pid, SIGKILL);
	cr_assert_eq(waitpid(t->pid, NULL, 0), t->pid);
}

/* This test process becomes an unprivileged uid: no capabilities at all. */
static void become_caller(uid_t uid)
{
	struct {
		uint32_t version;
		int pid;
	} h = { 0x20080522, 0 };
	uint32_t d[6] = { 0 };

	cr_assert_eq(become(uid), 0, "become uid %u: %s", (unsigned)uid, strerror(errno));
	cr_assert_eq(syscall(SYS_capset, &h, d), 0);
	cr_assert_eq(geteuid(), uid);
}

/* Zombie children of this process (state Z in /proc/PID/stat). */
static int count_zombies(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	cr_assert(d);
	while ((e = readdir(d))) {
		char path[300], buf[512], st;
		int ppid, fd;
		ssize_t len;
		char *p;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %c %d", &st, &ppid) == 2 && ppid == getpid() && st == 'Z')
			n++;
	}
	closedir(d);
	return n;
}

/* Which way a capture went: listmount requests by fd, by id, for its own ns. */
struct route_count {
	int by_fd, by_id, own;
};

static long count_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids, size_t nr,
			    unsigned flags)
{
	struct route_count *c = ctx;

	if (req->mnt_ns_fd)
		c->by_fd++;
	else if (req->size >= 32 && req->mnt_ns_id)
		c->by_id++;
	else
		c->own++; /* only a helper inside the target lists its own */
	return mntsnap__sys_listmount(NULL, req, ids, nr, flags);
}

static long count_statmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, struct mntsnap_k_statmount *buf,
			    size_t size, unsigned flags)
{
	(void)ctx;
	return mntsnap__sys_statmount(NULL, req, buf, size, flags);
}

static int capture(const struct mntsnap_ns *ns, uint32_t flags, struct route_count *count,
		   struct mntsnap_error *err, struct mntsnap_snapshot **ret)
{
	struct mntsnap_sysops sys = { .listmount = count_listmount,
				      .statmount = count_statmount,
				      .ctx = count };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .ns = ns, .flags = flags,  .error = err);

	memset(err, 0, sizeof(*err));
	*ret = NULL;
	return mntsnap__capture_with(&o, (count ? &sys : NULL), ret);
}

/* Capture ns and return its mountinfo text; the capture must work. */
static char *capture_text(const struct mntsnap_ns *ns, uint32_t flags, struct route_count *count)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_error err;
	int r = capture(ns, flags, count, &err, &s);
	char *text;

	cr_assert_eq(r, 0, "capture (flags %#x): %s (%s)", flags, strerror(-r), err.msg);
	cr_assert_eq(mntsnap_snapshot_ns_id(s), mntsnap_ns_id(ns));
	text = ms_render(s, MNTSNAP_FORMAT_MOUNTINFO);
	mntsnap_snapshot_free(s);
	cr_assert(strstr(text, " " BASE "/t ") && strstr(text, " rootless "),
		  "the target's tmpfs is missing (flags %#x):\n%s", flags, text);
	return text;
}

static void assert_marker(const struct mntsnap_ns *ns)
{
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_ns_opts, o, .error = &err);
	char buf[32] = { 0 };
	int fd = -1, r;

	r = mntsnap_ns_open_file(ns, BASE "/t/marker", O_RDONLY, 0, &o, &fd);
	cr_assert_eq(r, 0, "open_file: %s (%s)", strerror(-r), err.msg);
	cr_assert_eq(pread(fd, buf, sizeof(buf) - 1, 0), 8);
	cr_assert_str_eq(buf, "rootless");
	close(fd);
}

/* What the helper is, seen from inside. */
struct inside {
	unsigned long long cap_eff, cap_prm;
	char userns[64];
};

static int inspect_fn(void *data, void **ret_buf, size_t *ret_len)
{
	struct inside *in = calloc(1, sizeof(*in));
	char line[256];
	ssize_t n;
	FILE *f;

	(void)data;
	if (!in)
		return -ENOMEM;
	n = readlink("/proc/self/ns/user", in->userns, sizeof(in->userns) - 1);
	f = n > 0 ? fopen("/proc/self/status", "re") : NULL;
	if (!f) {
		free(in);
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "CapEff: %llx", &in->cap_eff);
		sscanf(line, "CapPrm: %llx", &in->cap_prm);
	}
	fclose(f);
	*ret_buf = in;
	*ret_len = sizeof(*in);
	return 0;
}

static struct inside *inspect(const struct mntsnap_ns *ns, uint64_t keep_caps)
{
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_ns_opts, o, .keep_caps = keep_caps, .error = &err);
	struct inside *in = NULL;
	size_t len = 0;
	int r = mntsnap_ns_run(ns, inspect_fn, NULL, &o, (void **)&in, &len);

	cr_assert_eq(r, 0, "ns_run: %s (%s)", strerror(-r), err.msg);
	cr_assert_eq(len, sizeof(*in));
	return in;
}

static void userns_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/user");
	n = readlink(path, buf, len - 1);
	cr_assert(n > 0, "readlink %s: %s", path, strerror(errno));
	buf[n] = '\0';
}

/* The owner of the container's user namespace, no capabilities: everything works. */
LTest(userns, owner_without_caps)
{
	struct route_count enter = { 0 }, autoc = { 0 }, direct = { 0 }, byid = { 0 };
	struct mntsnap_ns *ns, *idns;
	char *te, *ta, *td, *ti, target_userns[64], own_userns[64];
	struct inside *in;
	struct target t;
	int fds;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/t");
	t = target_start(NOBODY);
	become_caller(NOBODY);
	fds = ms_count_fds();
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);

	te = capture_text(ns, MNTSNAP_CAPTURE_NS_ENTER, &enter);
	cr_assert(enter.own > 0 && enter.by_fd == 0 && enter.by_id == 0,
		  "NS_ENTER did not capture inside (fd %d id %d own %d)", enter.by_fd,
		  enter.by_id, enter.own);
	/* AUTO: the cheapest way that works for the owner is the fd query */
	ta = capture_text(ns, 0, &autoc);
	cr_assert(autoc.by_fd > 1 && autoc.by_id == 0 && autoc.own == 0,
		  "AUTO must query by fd (fd %d id %d own %d)", autoc.by_fd, autoc.by_id,
		  autoc.own);
	td = capture_text(ns, MNTSNAP_CAPTURE_NS_DIRECT, &direct);
	cr_assert(direct.by_fd > 1 && direct.own == 0);
	/* the owner has CAP_SYS_ADMIN over its user namespace: by id works too */
	cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(ns), NULL, &idns), 0);
	ti = capture_text(idns, 0, &byid);
	cr_assert(byid.by_id > 1 && byid.by_fd == 0 && byid.own == 0,
		  "AUTO by id must query by id (fd %d id %d own %d)", byid.by_fd, byid.by_id,
		  byid.own);
	ms_assert_text_eq(ta, te, "AUTO vs NS_ENTER");
	ms_assert_text_eq(td, te, "NS_DIRECT vs NS_ENTER");
	ms_assert_text_eq(ti, te, "by id vs NS_ENTER");
	assert_marker(ns);

	/* the helper joined the container's user namespace ... */
	userns_of(t.pid, target_userns, sizeof(target_userns));
	userns_of(0, own_userns, sizeof(own_userns));
	cr_assert_str_neq(target_userns, own_userns);
	in = inspect(ns, 0);
	cr_assert_str_eq(in->userns, target_userns, "helper did not join the owner user namespace");
	/* ... where it had every capability; the cut after setns took them */
	cr_assert_eq(in->cap_eff, 0, "capabilities left: %llx", in->cap_eff);
	cr_assert_eq(in->cap_prm, 0, "permitted left: %llx", in->cap_prm);
	free(in);
	in = inspect(ns, CAP_SYS_ADMIN_BIT);
	cr_assert_eq(in->cap_eff, CAP_SYS_ADMIN_BIT, "capabilities: %llx", in->cap_eff);
	cr_assert_eq(in->cap_prm, CAP_SYS_ADMIN_BIT, "permitted: %llx", in->cap_prm);
	free(in);

	free(te);
	free(ta);
	free(td);
	free(ti);
	mntsnap_ns_free(idns);
	mntsnap_ns_free(ns);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0);
	target_stop(&t);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void assert_owner_error(int r, const struct mntsnap_error *err, const char *what)
{
	char owner[32];

	snprintf(owner, sizeof(owner), "uid %d", OTHER);
	cr_assert_eq(r, -EPERM, "%s: %s (%s)", what, strerror(-r), err->msg);
	cr_assert(strstr(err->msg, "CAP_SYS_ADMIN") && strstr(err->msg, owner),
		  "%s: message must name the capability and the owner: %s", what, err->msg);
}

/* Another uid's rootless container: refused, with the reason, promptly and cleanly. */
LTest(userns, not_the_owner)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_ns *byfd, *byid, *bypid = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_ns_opts, o, .error = &err);
	struct route_count autoc = { 0 };
	struct target t;
	char path[64];
	void *buf = NULL;
	size_t len = 0;
	double t0;
	int fds, fd = -1, r;
	char *ta;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/t");
	t = target_start(OTHER);
	/* root opens it; the handle (an nsfs fd) is all the caller gets */
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)t.pid);
	cr_assert_eq(mntsnap_ns_open_path(path, NULL, &byfd), 0);
	cr_assert_eq(mntsnap_ns_open_id(mntsnap_ns_id(byfd), NULL, &byid), 0);
	become_caller(NOBODY);
	fds = ms_count_fds();
	t0 = now();

	/*
	 * by pid: another uid's process. Its namespace needs ptrace access,
	 * its /proc/PID/mountinfo does not (findmnt -N reads it): a text
	 * handle, whose capture is the kernel's text, and nothing more.
	 */
	r = mntsnap_ns_open_pid(t.pid, NULL, &bypid);
	cr_assert_eq(r, 0, "open_pid: %s", strerror(-r));
	cr_assert_eq(mntsnap_ns_id(bypid), 0, "the namespace id is not the caller's to know");
	{
		char *want;

		ta = capture_text(bypid, 0, NULL);
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)t.pid);
		want = ms_read_file(path, NULL);
		ms_assert_text_eq(ta, want, "text handle vs the kernel's mountinfo");
		free(want);
		free(ta);
		r = capture(bypid, MNTSNAP_CAPTURE_NS_ENTER, NULL, &err, &s);
		cr_assert_eq(r, -EACCES, "enter: %s (%s)", strerror(-r), err.msg);
		cr_assert(strstr(err.msg, "ptrace"), "%s", err.msg);
		r = mntsnap_ns_run(bypid, inspect_fn, NULL, &o, &buf, &len);
		cr_assert_eq(r, -EACCES, "ns_run: %s", strerror(-r));
		cr_assert_null(buf);
	}
	mntsnap_ns_free(bypid);
	bypid = NULL;
	/* entering: neither the mount namespace nor its owner user namespace */
	r = capture(byfd, MNTSNAP_CAPTURE_NS_ENTER, NULL, &err, &s);
	assert_owner_error(r, &err, "capture NS_ENTER");
	memset(&err, 0, sizeof(err));
	r = mntsnap_ns_open_file(byfd, BASE "/t/marker", O_RDONLY, 0, &o, &fd);
	assert_owner_error(r, &err, "open_file");
	cr_assert_eq(fd, -1);
	memset(&err, 0, sizeof(err));
	r = mntsnap_ns_run(byfd, inspect_fn, NULL, &o, &buf, &len);
	assert_owner_error(r, &err, "ns_run");
	cr_assert_null(buf);
	/* by id: not the owner, no CAP_SYS_ADMIN over it */
	r = capture(byid, MNTSNAP_CAPTURE_NS_DIRECT, NULL, &err, &s);
	cr_assert_eq(r, -EPERM, "direct by id: %s (%s)", strerror(-r), err.msg);
	cr_assert(strstr(err.msg, "CAP_SYS_ADMIN"), "%s", err.msg);
	cr_assert(now() - t0 < 5.0, "refusals took %.1f s", now() - t0);
	/* but holding the fd is the permission for a direct query (6.18+) */
	ta = capture_text(byfd, 0, &autoc);
	cr_assert(autoc.by_fd > 1 && autoc.own == 0);
	free(ta);

	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0, "helper left a zombie");
	mntsnap_ns_free(byfd);
	mntsnap_ns_free(byid);
	target_stop(&t);
}

/* A root process in a mount namespace of its own, with a marker tmpfs. */
static struct target root_target_start(void)
{
	int rp[2], cp[2];
	struct target t;
	char c;

	cr_assert_eq(pipe2(rp, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(cp, O_CLOEXEC), 0);
	t.pid = fork();
	cr_assert(t.pid >= 0);
	if (t.pid == 0) {
		close(rp[0]);
		close(cp[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("rootns", BASE "/t", "tmpfs", 0, "size=64k"))
			die_child(rp[1], "root target");
		if (write(rp[1], "k", 1) != 1)
			_exit(1);
		while (read(cp[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(rp[1]);
	close(cp[0]);
	t.ctl = cp[1];
	cr_assert_eq(read(rp[0], &c, 1), 1, "root target did not start");
	cr_assert_eq(c, 'k');
	close(rp[0]);
	return t;
}

/*
 * What findmnt -N PID shows, mntsnap shows: targets, sources and types of
 * the capture of a pid handle equal findmnt's, as an unprivileged caller.
 */
static void assert_like_findmnt(int pid, const char *marker)
{
	struct mntsnap_snapshot *s;
	struct mntsnap_error err;
	struct mntsnap_ns *ns = NULL;
	char cmd[256], *ours = NULL, *theirs;
	size_t olen;
	FILE *f;
	int r;

	r = mntsnap_ns_open_pid(pid, NULL, &ns);
	cr_assert_eq(r, 0, "open_pid %d: %s", pid, strerror(-r));
	r = capture(ns, 0, NULL, &err, &s);
	cr_assert_eq(r, 0, "capture: %s (%s)", strerror(-r), err.msg);
	f = open_memstream(&ours, &olen);
	for (size_t i = 0; i < mntsnap_snapshot_count(s); i++) {
		struct mntsnap_mount m;

		mntsnap_snapshot_get(s, i, &m);
		fprintf(f, "%s %s %s%s%s\n", m.mount_point, m.source, m.fs_type,
			(m.mask & MNTSNAP_F_FS_SUBTYPE) && m.fs_subtype[0] ? "." : "",
			(m.mask & MNTSNAP_F_FS_SUBTYPE) ? m.fs_subtype : "");
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "LC_ALL=C findmnt -N %d -l -n --nofsroot -o TARGET,SOURCE,FSTYPE",
		 pid);
	f = popen(cmd, "r");
	cr_assert(f);
	ms_read_fd(fileno(f), &theirs);
	cr_assert_eq(pclose(f), 0, "%s", cmd);
	/* findmnt -l pads columns: compare word by word */
	{
		char *a = ours, *b = theirs;

		for (;;) {
			size_t la, lb;

			a += strspn(a, " ");
			b += strspn(b, " ");
			la = strcspn(a, " \n");
			lb = strcspn(b, " \n");
			cr_assert(la == lb && !memcmp(a, b, la), "mntsnap:\n%s\nfindmnt:\n%s", ours,
				  theirs);
			if (!a[la])
				break;
			cr_assert_eq(a[la] == '\n', b[lb] == '\n', "mntsnap:\n%s\nfindmnt:\n%s", ours,
				     theirs);
			a += la + 1;
			b += lb + 1;
		}
	}
	cr_assert(strstr(ours, marker), "%s", ours);
	free(ours);
	free(theirs);
	mntsnap_snapshot_free(s);
	mntsnap_ns_free(ns);
}

/*
 * As an unprivileged user: root's process in another mount namespace
 * (no ptrace access, but a readable /proc/PID/mountinfo) and a process
 * of the same uid in a mount namespace of its own both read as findmnt
 * -N reads them.
 */
LTest(userns, unprivileged_pid_targets_like_findmnt)
{
	struct target root_t, own_t;
	int fds;

	if (system("findmnt --version >/dev/null 2>&1"))
		cr_skip_test("findmnt missing (util-linux, installed by .ci/deps)");
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/t");
	root_t = root_target_start();
	own_t = target_start(NOBODY);
	become_caller(NOBODY);
	fds = ms_count_fds();
	assert_like_findmnt(root_t.pid, " rootns tmpfs");
	assert_like_findmnt(own_t.pid, " rootless tmpfs");
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0, "helper left a zombie");
	target_stop(&own_t);
	target_stop(&root_t);
}

/* Root holds CAP_SYS_ADMIN over every descendant user namespace: no join. */
LTest(userns, root_enters_without_joining)
{
	struct route_count enter = { 0 };
	char own_userns[64], target_userns[64];
	struct mntsnap_ns *ns;
	struct inside *in;
	struct target t;
	int fds;
	char *te;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/t");
	t = target_start(NOBODY);
	fds = ms_count_fds();
	cr_assert_eq(mntsnap_ns_open_pid(t.pid, NULL, &ns), 0);
	te = capture_text(ns, MNTSNAP_CAPTURE_NS_ENTER, &enter);
	cr_assert(enter.own > 0 && enter.by_fd == 0);
	assert_marker(ns);
	userns_of(0, own_userns, sizeof(own_userns));
	userns_of(t.pid, target_userns, sizeof(target_userns));
	in = inspect(ns, 0);
	cr_assert_str_eq(in->userns, own_userns, "root's helper joined %s", in->userns);
	cr_assert_str_neq(in->userns, target_userns);
	cr_assert_eq(in->cap_eff, 0, "capabilities left: %llx", in->cap_eff);
	free(in);
	free(te);
	mntsnap_ns_free(ns);
	cr_assert_eq(ms_count_fds(), fds, "fd leak");
	cr_assert_eq(count_zombies(), 0);
	target_stop(&t);
}
