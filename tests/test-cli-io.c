// SPDX-License-Identifier: MIT
/*
 * Output and input discipline of the CLI and the snapshot files:
 *  - every command writing to /dev/full fails (exit 2) and says ENOSPC;
 *  - /dev/zero as input (mountinfo file, snapshot) is refused at once, in
 *    words, with memory bounded (RLIMIT_AS in the child, and its peak RSS);
 *  - a save killed with SIGKILL at any moment leaves the old file intact,
 *    and no temp file once the next save ran;
 *  - save through a symlink, and the mode of a replaced file;
 *  - no message repeats its strerror text.
 * The oracles are the kernel's: ENOSPC from /dev/full, the rusage of the
 * child, the directory's contents, stat().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "mntsnap.h"
#include "sys.h"
#include "sys-seam.h"

#define BASE "/tmp/mntsnap-cli-io"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

struct run {
	int status;       /* exit code, or -1 */
	char *out, *err;
	long maxrss_kib;  /* the child's peak resident size */
};

static const char *bin(void)
{
	const char *b = getenv("MNTSNAP_BIN");

	if (!b)
		cr_skip_test("MNTSNAP_BIN not set (run through meson test)");
	return b;
}

/*
 * Run argv; stdout goes to out_path when given (else a pipe). as_limit:
 * RLIMIT_AS for the child in bytes (0: none; never under ASan, whose
 * shadow memory needs terabytes of address space).
 */
static struct run run_cli(const char *const *argv, const char *out_path, size_t as_limit)
{
	int o[2], e[2], st;
	struct rusage ru;
	struct run r;
	pid_t pid;

	cr_assert_eq(pipe2(o, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(e, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		if (out_path) {
			int fd = open(out_path, O_WRONLY | O_CLOEXEC);

			if (fd < 0 || dup2(fd, 1) < 0)
				_exit(126);
		} else {
			dup2(o[1], 1);
		}
		dup2(e[1], 2);
#ifndef UNDER_ASAN
		if (as_limit) {
			struct rlimit rl = { as_limit, as_limit };

			setrlimit(RLIMIT_AS, &rl);
		}
#else
		(void)as_limit;
#endif
		setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	ms_read_fd(o[0], &r.out);
	ms_read_fd(e[0], &r.err);
	close(o[0]);
	close(e[0]);
	cr_assert_eq(wait4(pid, &st, 0, &ru), pid);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r.maxrss_kib = ru.ru_maxrss;
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* Two different snapshots to show and diff, saved by the library. */
static void make_snapshots(void)
{
	struct mntsnap_snapshot *s;

	ms_private_ns(BASE);
	cr_assert_eq(mntsnap_capture(NULL, &s), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/a.snap"), 0);
	mntsnap_snapshot_free(s);
	ms_mkdir_p(BASE "/m");
	cr_assert_eq(mount("x", BASE "/m", "tmpfs", 0, NULL), 0);
	cr_assert_eq(mntsnap_capture(NULL, &s), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/b.snap"), 0);
	mntsnap_snapshot_free(s);
}

Test(cli_io, dev_full_fails_every_command)
{
	const char *b = bin();
	char merge_profile[4096];
	const char *src = getenv("MNTSNAP_SRCDIR");
	const char *const cmds[][8] = {
		{ b, "list", NULL },
		{ b, "list", "-J", NULL },
		{ b, "list", "--format", "mountinfo", "--backend", "mountinfo", NULL },
		{ b, "stat", "/", NULL },
		{ b, "ns", NULL },
		{ b, "ns", "-J", NULL },
		{ b, "show", BASE "/a.snap", NULL },
		{ b, "show", BASE "/a.snap", "-J", NULL },
		{ b, "diff", BASE "/a.snap", BASE "/b.snap", NULL },
		{ b, "seccomp", "--format", "oci", NULL },
		{ b, "seccomp", "--merge", merge_profile, NULL },
		{ b, "--help", NULL },
		{ b, "--version", NULL },
		{ b, "list", "--help", NULL },
		{ b, "show", BASE "/big.snap", "--format", "tree", NULL },
	};
	struct mntsnap_snapshot *big;
	unsigned tried = 0;
	char p[128];

	cr_assert(src, "MNTSNAP_SRCDIR not set");
	snprintf(merge_profile, sizeof(merge_profile), "%s/tests/data/seccomp/docker-default.json",
		 src);
	make_snapshots();
	/* tables whose output overflows stdout's buffer: writes fail mid-way */
	for (int i = 0; i < 3000; i++) {
		snprintf(p, sizeof(p), BASE "/big/%04d", i);
		ms_mkdir_p(p);
		cr_assert_eq(mount(BASE "/m", p, NULL, MS_BIND, NULL), 0);
	}
	cr_assert_eq(mntsnap_capture(NULL, &big), 0);
	cr_assert_eq(mntsnap_snapshot_save(big, BASE "/big.snap"), 0);
	mntsnap_snapshot_free(big);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct run ok = run_cli(cmds[i], NULL, 0), full;

		/* --merge is absent without json-c: nothing to check then */
		if (ok.status == 2 && strstr(ok.err, "json-c")) {
			run_free(&ok);
			continue;
		}
		cr_assert(ok.status == 0 || (ok.status == 1 && !strcmp(cmds[i][1], "diff")),
			  "%s %s: status %d: %s", cmds[i][1], cmds[i][2], ok.status, ok.err);
		cr_assert(ok.out[0], "%s printed nothing", cmds[i][1]);
		full = run_cli(cmds[i], "/dev/full", 0);
		cr_assert_eq(full.status, 2, "%s %s > /dev/full: exit %d", cmds[i][1],
			     cmds[i][2] ? cmds[i][2] : "", full.status);
		cr_assert(strstr(full.err, strerror(ENOSPC)), "%s: %s", cmds[i][1], full.err);
		cr_assert(!strstr(full.err, strerror(EIO)), "%s: %s", cmds[i][1], full.err);
		tried++;
		run_free(&ok);
		run_free(&full);
	}
	fprintf(stderr, "cli-io /dev/full: %u command lines, every one exit 2 with ENOSPC\n",
		tried);
}

/* Inputs that never end: refused at once, in words, without the memory. */
Test(cli_io, dev_zero_inputs_refused_with_bounded_memory)
{
	const char *b = bin();
	const struct {
		const char *argv[6];
		const char *says;
	} cases[] = {
		{ { b, "list", "--mountinfo-file", "/dev/zero", NULL }, "not a decimal number" },
		{ { b, "show", "/dev/zero", NULL }, "not a mntsnap snapshot" },
		{ { b, "diff", "/dev/zero", BASE "/a.snap", NULL }, "not a mntsnap snapshot" },
		{ { b, "diff", BASE "/a.snap", "/dev/zero", NULL }, "not a mntsnap snapshot" },
	};
	long worst = 0;

	make_snapshots();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run_cli(cases[i].argv, NULL, 256UL << 20);

		cr_assert_eq(r.status, 2, "%s %s: exit %d: %s", cases[i].argv[1],
			     cases[i].argv[2], r.status, r.err);
		cr_assert(strstr(r.err, cases[i].says), "%s", r.err);
		cr_assert(!strstr(r.err, strerror(E2BIG)), "%s", r.err);
		/* the old reader grew to GiBs; a refusal needs no more than startup */
		cr_assert_lt(r.maxrss_kib, 100 * 1024, "%s: peak RSS %ld KiB", cases[i].argv[1],
			     r.maxrss_kib);
		if (r.maxrss_kib > worst)
			worst = r.maxrss_kib;
		run_free(&r);
	}
	fprintf(stderr, "cli-io /dev/zero: 4 inputs refused, peak RSS at most %ld KiB\n", worst);
}

/* The library, same inputs: errors and their words. */
Test(cli_io, dev_zero_library)
{
	struct mntsnap_snapshot *s = NULL;
	struct mntsnap_error err = { 0 };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_MOUNTINFO,
		     .mountinfo_path = "/dev/zero", .error = &err);

	cr_assert_eq(mntsnap_snapshot_load("/dev/zero", &err, &s), -EBADMSG);
	cr_assert(strstr(err.msg, "bad magic"), "%s", err.msg);
	cr_assert_eq(mntsnap_capture(&o, &s), -EBADMSG);
	cr_assert(strstr(err.msg, "line 1"), "%s", err.msg);
	cr_assert_null(s);
}

/* ---- save ---------------------------------------------------------------------- */

/* Names in dir starting with ".NAME." (our temp files, and any other). */
static int temp_files(const char *dir, const char *name)
{
	char prefix[256];
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	cr_assert(d);
	snprintf(prefix, sizeof(prefix), ".%s.", name);
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static bool same_table(const struct mntsnap_snapshot *a, const struct mntsnap_snapshot *b)
{
	struct mntsnap_diff *d;
	bool same;

	cr_assert_eq(mntsnap_diff(a, b, &d), 0);
	same = !mntsnap_diff_count(d);
	mntsnap_diff_free(d);
	return same;
}

Test(cli_io, save_killed_leaves_old_file_and_no_temp, .timeout = 120)
{
	struct mntsnap_snapshot *old, *new, *got;
	unsigned kills = 0, left = 0, was_old = 0, was_new = 0;
	char p[128];

	ms_private_ns(BASE);
	/* a table large enough that a save takes a while to write */
	for (int i = 0; i < 1500; i++) {
		snprintf(p, sizeof(p), BASE "/b/%04d", i);
		ms_mkdir_p(p);
		cr_assert_eq(mount(BASE "/b", p, NULL, MS_BIND, NULL), 0);
	}
	cr_assert_eq(mntsnap_capture(NULL, &old), 0);
	cr_assert_eq(mntsnap_snapshot_save(old, BASE "/s.snap"), 0);
	ms_mkdir_p(BASE "/extra");
	cr_assert_eq(mount("x", BASE "/extra", "tmpfs", 0, NULL), 0);
	cr_assert_eq(mntsnap_capture(NULL, &new), 0);
	srand(1);
	for (int k = 0; k < 300; k++) {
		struct timespec ts = { 0, (rand() % 3000) * 1000L };
		pid_t pid;
		int st;

		/* the old table under the name, then a save of the new one, killed */
		cr_assert_eq(mntsnap_snapshot_save(old, BASE "/s.snap"), 0);
		pid = fork();
		cr_assert_geq(pid, 0);
		if (!pid)
			_exit(mntsnap_snapshot_save(new, BASE "/s.snap") ? 1 : 0);
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		cr_assert(WIFSIGNALED(st) || WEXITSTATUS(st) == 0, "a save failed");
		kills += WIFSIGNALED(st);
		left += (unsigned)temp_files(BASE, "s.snap");
		/* whole and loadable at every moment: the old table or the new */
		cr_assert_eq(mntsnap_snapshot_load(BASE "/s.snap", NULL, &got), 0, "kill %d", k);
		if (same_table(got, old))
			was_old++;
		else if (same_table(got, new))
			was_new++;
		else
			cr_assert_fail("kill %d: the file is neither snapshot", k);
		mntsnap_snapshot_free(got);
	}
	cr_assert_gt(kills, 0, "no save was ever killed: the test tested nothing");
	/* the next save removes what a killed one left */
	cr_assert_eq(mntsnap_snapshot_save(old, BASE "/s.snap"), 0);
	cr_assert_eq(temp_files(BASE, "s.snap"), 0);
	fprintf(stderr,
		"cli-io save: 300 saves, %u killed by SIGKILL, file whole every time (%u old, %u new), "
		"temp names seen before the next save %u, after it 0\n",
		kills, was_old, was_new, left);
	mntsnap_snapshot_free(old);
	mntsnap_snapshot_free(new);
}

/* A temp file of a save killed in the named-temp phase is removed later. */
Test(cli_io, save_removes_stale_temp_but_not_held_ones)
{
	struct mntsnap_snapshot *s;
	int held;

	ms_private_ns(BASE);
	cr_assert_eq(mntsnap_capture(NULL, &s), 0);
	cr_assert_eq(close(open(BASE "/.t.snap.mntsnap-AbC123", O_CREAT | O_WRONLY, 0600)), 0);
	held = open(BASE "/.t.snap.mntsnap-HeLd99", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	cr_assert_geq(held, 0);
	cr_assert_eq(flock(held, LOCK_EX), 0); /* a save still writing */
	cr_assert_eq(close(open(BASE "/.t.snap.other", O_CREAT | O_WRONLY, 0600)), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/t.snap"), 0);
	cr_assert_eq(access(BASE "/.t.snap.mntsnap-AbC123", F_OK), -1, "stale temp kept");
	cr_assert_eq(access(BASE "/.t.snap.mntsnap-HeLd99", F_OK), 0, "a live save's temp removed");
	cr_assert_eq(access(BASE "/.t.snap.other", F_OK), 0, "a file not ours removed");
	close(held);
	mntsnap_snapshot_free(s);
}

Test(cli_io, save_follows_symlink_and_keeps_mode)
{
	struct mntsnap_snapshot *s, *got;
	struct stat st;

	ms_private_ns(BASE);
	umask(022);
	cr_assert_eq(mntsnap_capture(NULL, &s), 0);
	/* new: 0600 */
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/f.snap"), 0);
	cr_assert_eq(stat(BASE "/f.snap", &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	/* replaced: keeps 0644 and its owner */
	cr_assert_eq(chmod(BASE "/f.snap", 0644), 0);
	cr_assert_eq(chown(BASE "/f.snap", 1234, 5678), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/f.snap"), 0);
	cr_assert_eq(stat(BASE "/f.snap", &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	cr_assert_eq(st.st_uid, 1234);
	cr_assert_eq(st.st_gid, 5678);
	/* a link: the file it names is replaced, the link stays */
	ms_mkdir_p(BASE "/other");
	cr_assert_eq(symlink("../f.snap", BASE "/other/link"), 0);
	cr_assert_eq(chmod(BASE "/f.snap", 0640), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/other/link"), 0);
	cr_assert_eq(lstat(BASE "/other/link", &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "the symlink was replaced by a file");
	cr_assert_eq(stat(BASE "/f.snap", &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0640);
	cr_assert_eq(mntsnap_snapshot_load(BASE "/other/link", NULL, &got), 0);
	cr_assert(same_table(got, s));
	mntsnap_snapshot_free(got);
	cr_assert_eq(temp_files(BASE "/other", "link"), 0);
	cr_assert_eq(temp_files(BASE, "f.snap"), 0);
	/* dangling: refused, nothing created */
	cr_assert_eq(symlink("nothere.snap", BASE "/dangling"), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/dangling"), -ENOENT);
	cr_assert_eq(access(BASE "/nothere.snap", F_OK), -1);
	/* a directory */
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/other"), -EISDIR);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/other/"), -EISDIR);
	mntsnap_snapshot_free(s);
}

Test(cli_io, save_symlink_cli)
{
	const char *b = bin();
	const char *argv[] = { b, "save", BASE "/link", NULL };
	const char *dang[] = { b, "save", BASE "/dangling", NULL };
	struct run r;
	struct stat st;

	ms_private_ns(BASE);
	cr_assert_eq(symlink("real.snap", BASE "/link"), 0);
	cr_assert_eq(close(open(BASE "/real.snap", O_CREAT | O_WRONLY, 0644)), 0);
	r = run_cli(argv, NULL, 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	run_free(&r);
	cr_assert_eq(lstat(BASE "/link", &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_eq(stat(BASE "/real.snap", &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	cr_assert_gt(st.st_size, 24);
	cr_assert_eq(symlink("nothere", BASE "/dangling"), 0);
	r = run_cli(dang, NULL, 0);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "symbolic link to nothing"), "%s", r.err);
	run_free(&r);
}

/* ---- messages ------------------------------------------------------------------- */

/* No strerror text twice in one message ("Invalid argument: Invalid argument"). */
Test(cli_io, messages_say_errno_once)
{
	const char *b = bin();
	const char *const cmds[][8] = {
		{ b, "stat", "12345", NULL },
		{ b, "stat", "/nonexistent/path", NULL },
		{ b, "save", "--backend", "mountinfo", "--under", "/", BASE "/x.snap", NULL },
		{ b, "save", BASE "/no/such/dir/x.snap", NULL },
		{ b, "save", "--backend", "statmount", "--ns-id", "1", BASE "/x.snap", NULL },
		{ b, "list", "--mountinfo-file", "/nonexistent", NULL },
		{ b, "list", "--backend", "mountinfo", "--under", "/", NULL },
		{ b, "show", "/nonexistent", NULL },
		{ b, "show", BASE, NULL },
		{ b, "diff", "/nonexistent", "/nonexistent", NULL },
	};

	ms_private_ns(BASE);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct run r = run_cli(cmds[i], NULL, 0);

		cr_assert_eq(r.status, 2, "%s %s: exit %d", cmds[i][1], cmds[i][2], r.status);
		cr_assert(r.err[0], "%s: no message", cmds[i][1]);
		for (int e = 1; e < 134; e++) {
			const char *text = strerror(e), *first = strstr(r.err, text);

			if (first && strlen(text) > 6)
				cr_assert_null(strstr(first + strlen(text), text),
					       "twice in: %s", r.err);
		}
		run_free(&r);
	}
}

/* ---- an inconsistent snapshot on disk ------------------------------------------ */

/* A listmount that mounts one more tmpfs after each listing: always racing. */
static long racing_listmount(void *ctx, const struct mntsnap_k_mnt_id_req *req, uint64_t *ids,
			     size_t nr, unsigned flags)
{
	long n = mntsnap__sys_listmount(NULL, req, ids, nr, flags);
	int *k = ctx;
	char p[64];

	if (req->param == 0) {
		snprintf(p, sizeof(p), BASE "/race/%d", (*k)++);
		ms_mkdir_p(p);
		mount("race", p, "tmpfs", 0, NULL);
	}
	return n;
}

Test(cli_io, show_warns_about_an_inconsistent_snapshot)
{
	const char *b = bin();
	const char *show[] = { b, "show", BASE "/racy.snap", NULL };
	const char *quiet[] = { b, "show", BASE "/quiet.snap", NULL };
	struct mntsnap_snapshot *s = NULL;
	int k = 0;
	struct mntsnap_sysops ops = { .listmount = racing_listmount, .ctx = &k };
	MNTSNAP_OPTS(mntsnap_capture_opts, o, .backend = MNTSNAP_BACKEND_STATMOUNT,  .max_retries = 1);
	struct run r;

	ms_private_ns(BASE);
	cr_assert_eq(mntsnap__capture_with(&o, &ops, &s), 0);
	cr_assert_eq(mntsnap_snapshot_consistent(s), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/racy.snap"), 0);
	mntsnap_snapshot_free(s);
	cr_assert_eq(mntsnap_capture(NULL, &s), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/quiet.snap"), 0);
	mntsnap_snapshot_free(s);
	r = run_cli(show, NULL, 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(r.out[0]);
	cr_assert(strstr(r.err, "warning:") && strstr(r.err, "never existed together"), "%s",
		  r.err);
	run_free(&r);
	r = run_cli(quiet, NULL, 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_str_empty(r.err);
	run_free(&r);
}

/* A full filesystem: ENOSPC in words, the old file intact, nothing left. */
Test(cli_io, save_on_full_filesystem)
{
	const char *b = bin();
	const char *save[] = { b, "save", BASE "/small/s.snap", NULL };
	struct mntsnap_snapshot *s = NULL, *got = NULL;
	char block[4096] = { 0 };
	struct run r;
	int fd;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/small");
	cr_assert_eq(mount("small", BASE "/small", "tmpfs", 0, "size=64k"), 0);
	cr_assert_eq(mntsnap_capture(NULL, &s), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/small/s.snap"), 0);
	fd = open(BASE "/small/fill", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	while (write(fd, block, sizeof(block)) > 0)
		;
	cr_assert_eq(errno, ENOSPC);
	close(fd);
	r = run_cli(save, NULL, 0);
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, strerror(ENOSPC)), "%s", r.err);
	cr_assert(!strstr(r.err, strerror(EIO)), "%s", r.err);
	run_free(&r);
	cr_assert_eq(mntsnap_snapshot_load(BASE "/small/s.snap", NULL, &got), 0);
	cr_assert(same_table(got, s));
	cr_assert_eq(temp_files(BASE "/small", "s.snap"), 0);
	mntsnap_snapshot_free(got);
	mntsnap_snapshot_free(s);
}

/* ---- save --no-sync ------------------------------------------------------------- */

/* fsync calls of one CLI run, counted by strace; -1 without strace. */
static int cli_fsyncs(const char *const *args)
{
	const char *argv[16] = { "/usr/bin/strace", "-f", "-qq", "-e", "trace=fsync,fdatasync,syncfs",
				 "-o", BASE "/strace.out" };
	char line[512];
	struct run r;
	int n = 7, count = 0;
	FILE *f;

	if (access("/usr/bin/strace", X_OK))
		return -1;
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	r = run_cli(argv, NULL, 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	run_free(&r);
	f = fopen(BASE "/strace.out", "re");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f))
		count += strstr(line, "sync(") != NULL;
	fclose(f);
	return count;
}

Test(cli_io, save_no_sync)
{
	const char *b = bin();
	const char *sync_args[] = { b, "save", BASE "/s.snap", NULL };
	const char *nosync_args[] = { b, "save", "--no-sync", BASE "/n.snap", NULL };
	const char *show[] = { b, "show", "--format", "mountinfo", BASE "/n.snap", NULL };
	int with, without;
	struct run r;

	ms_private_ns(BASE);
	with = cli_fsyncs(sync_args);
	if (with < 0)
		cr_skip_test("no strace");
	without = cli_fsyncs(nosync_args);
	cr_assert_eq(with, 2, "save: %d fsyncs", with);
	cr_assert_eq(without, 0, "save --no-sync: %d fsyncs", without);
	r = run_cli(show, NULL, 0);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_gt(strlen(r.out), 0);
	run_free(&r);
}

/*
 * A block device this machine has ("MAJ:MIN" with MAJ not 0), or skip:
 * what libmount would rename a "/dev/root" source to.
 */
static void some_block_dev(char *buf, size_t sz)
{
	DIR *d = opendir("/sys/dev/block");
	struct dirent *e;

	*buf = '\0';
	while (d && (e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && strlen(e->d_name) < sz) {
			strcpy(buf, e->d_name);
			break;
		}
	if (d)
		closedir(d);
	if (!*buf)
		cr_skip_test("no block device with a major number here");
}

/*
 * show reads a saved table by its text alone: a "/dev/root" source stays
 * as saved, where list -F of the same text names this machine's device as
 * findmnt does. The table may come from another machine, whose root
 * device this one's /sys and kernel command line know nothing of.
 */
Test(cli_io, show_keeps_dev_root_as_saved)
{
	const char *b = bin();
	char dev[64], text[256];
	struct mntsnap_snapshot *s;
	struct run r;
	FILE *f;

	some_block_dev(dev, sizeof(dev));
	ms_private_ns(BASE);
	snprintf(text, sizeof(text), "20 1 %s / / rw - ext4 /dev/root rw\n", dev);
	cr_assert_eq(mntsnap_parse_mountinfo(text, strlen(text), NULL, &s), 0);
	cr_assert_eq(mntsnap_snapshot_save(s, BASE "/root.snap"), 0);
	mntsnap_snapshot_free(s);
	cr_assert(f = fopen(BASE "/root.mi", "we"));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	{
		const char *show[] = { b, "show", BASE "/root.snap", "-rn", "-o", "SOURCE", NULL };
		const char *list[] = { b, "list", "-F", BASE "/root.mi", "-rn", "-o", "SOURCE", NULL };

		bool renamed;

		r = run_cli(list, NULL, 0);
		cr_assert_eq(r.status, 0, "%s", r.err);
		renamed = strcmp(r.out, "/dev/root\n");
		run_free(&r);
		if (!renamed)
			cr_skip_test("list -F names no device for /dev/root here");
		r = run_cli(show, NULL, 0);
		cr_assert_eq(r.status, 0, "%s", r.err);
		cr_assert_str_eq(r.out, "/dev/root\n");
		run_free(&r);
	}
}
