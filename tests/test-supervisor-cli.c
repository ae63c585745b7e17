// SPDX-License-Identifier: MIT
/*
 * The supervisor's CLI: policy files (errors name the line and column),
 * `seccomp --notify-mounts` (only the mount syscalls change, checked with
 * json-c), and `supervise` as a listenerPath agent speaking to a raw
 * socket client: garbage and fd-less messages leave it serving, a peer
 * of another uid is refused, a real notify fd sent with a container state
 * gets its mounts decided (the kernel's mountinfo as the oracle), a
 * request made as long as possible still gets its audit line (cut to a
 * bound, with the whole lengths), and the agent raises its fd limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/filter.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "uapi.h"

#define BASE "/tmp/mntsnap-sv-cli"
#define SOCK BASE "/sv.sock"
#define AUDIT BASE "/audit.jsonl"

#if defined(__x86_64__)
#define ARCH_ 0xc000003eU
#elif defined(__aarch64__)
#define ARCH_ 0xc00000b7U
#else
#define ARCH_ 0U
#endif

static const char *bin(void)
{
	const char *p = getenv("MNTSNAP_BIN");

	if (!p || access(p, X_OK))
		cr_skip_test("MNTSNAP_BIN not set (run through meson test)");
	return p;
}

/* ---- policy files -------------------------------------------------------- */

static void expect_policy_error(const char *text, const char *want)
{
	char path[] = "/tmp/sv-cli-policy-XXXXXX";
	int fd = mkstemp(path);
	struct ms_run r;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	r = ms_run_in(NULL, (const char *const[]){ bin(), "supervise", "--policy", path, "--check",
						   NULL });
	unlink(path);
	cr_expect_eq(r.status, 2, "accepted:\n%s", text);
	cr_expect(strstr(r.err, want), "want \"%s\", got: %s", want, r.err);
	ms_run_free(&r);
}

Test(supervisor_cli, policy_errors_name_the_position)
{
	expect_policy_error("{\"default\": \"deny\",\n \"rulez\": []}", ":2:11: unknown key \"rulez\"");
	expect_policy_error("{\"rules\": [\n  {\"fstype\": \"tmpfs\",\n   \"fsype\": \"x\"}]}",
			    ":3:13: unknown key \"fsype\" in a rule");
	expect_policy_error("{\"rules\": [\n  {\"target\": \"/mnt/[ab\"}]}",
			    ":2:14: target glob \"/mnt/[ab\" has an unclosed '['");
	expect_policy_error("{\"rules\": [{\"target\": \"mnt/*\"}]}", "must start with '/'");
	expect_policy_error("{\"rules\": [{\"source\": \"/x\\\\\"}]}", "ends with '\\'");
	expect_policy_error("{\"errno\": \"EWHAT\"}", ":1:11: unknown errno \"EWHAT\"");
	expect_policy_error("{\"rules\": [{\"force\": \"nosuid\"}]}",
			    "\"force\" must be an array of strings");
	expect_policy_error("{\"rules\": [{\"forbid\": [\"a,b\"]}]}", "forbid entry is empty or");
	expect_policy_error("{\"rules\": [{\"action\": \"maybe\"}]}", "neither \"allow\" nor");
	expect_policy_error("{\"rules\": [\n  {\"target\": \"/a\",}]}", ":2:19: expected a key");
	expect_policy_error("{\"default\": \"deny\"} x", ":1:21: trailing characters");
	expect_policy_error("[1]", ":1:1: the policy must be a JSON object");
	expect_policy_error("{\"a\": 1, \"a\": 2}", "duplicate key");
	expect_policy_error("{\"rules\": [\n  {\"grant\": [\"full-proc\", \"root\"]}]}",
			    ":2:27: unknown grant \"root\" (full-proc, writable-sysfs, writable-cgroup or host-credentials)");
	expect_policy_error("{\"rules\": [{\"grant\": \"full-proc\"}]}",
			    "\"grant\" must be an array of strings");
}

Test(supervisor_cli, policy_check_ok)
{
	static const char pol[] =
		"{\"default\": \"deny\", \"errno\": \"EPERM\",\n"
		" \"rules\": [\n"
		"   {\"fstype\": \"tmpfs\", \"target\": \"/mnt/*\", \"force\": [\"nosuid\", \"nodev\", "
		"\"noexec\"], \"forbid\": [\"uid\", \"gid\"]},\n"
		"   {\"fstype\": \"bind\", \"source\": \"/data/*\", \"target\": \"/mnt/*\"},\n"
		"   {\"fstype\": \"proc\", \"action\": \"deny\", \"errno\": 19},\n"
		"   {\"fstype\": \"sysfs\", \"target\": \"/mnt/*\", \"grant\": [\"writable-sysfs\"]},\n"
		"   {\"fstype\": \"ext4\", \"source\": \"/dev/vdb\", \"target\": \"/data\",\n"
		"    \"grant\": [\"host-credentials\"]}\n"
		" ]}\n";
	char path[] = "/tmp/sv-cli-policy-XXXXXX";
	int fd = mkstemp(path);
	struct ms_run r;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, pol, strlen(pol)), (ssize_t)strlen(pol));
	close(fd);
	r = ms_run_in(NULL, (const char *const[]){ bin(), "supervise", "--policy", path, "--check",
						   NULL });
	unlink(path);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(strstr(r.out, ": 5 rules"), "%s", r.out);
	ms_run_free(&r);
}

/* ---- seccomp --notify-mounts ------------------------------------------- */

static bool has_name(json_object *entry, const char *name)
{
	json_object *names;

	if (!json_object_object_get_ex(entry, "names", &names))
		return false;
	for (size_t i = 0; i < json_object_array_length(names); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(names, i)), name))
			return true;
	return false;
}

Test(supervisor_cli, notify_mounts_changes_only_the_mount_syscalls)
{
	static const char prof[] =
		"{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1,\n"
		" \"architectures\": [\"SCMP_ARCH_X86_64\"],\n"
		" \"syscalls\": [\n"
		"  {\"names\": [\"read\", \"mount\", \"write\"], \"action\": \"SCMP_ACT_ALLOW\"},\n"
		"  {\"names\": [\"umount2\", \"fsopen\"], \"action\": \"SCMP_ACT_ALLOW\"},\n"
		"  {\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\",\n"
		"   \"args\": [{\"index\": 0, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}\n"
		" ]}\n";
	char path[] = "/tmp/sv-cli-prof-XXXXXX";
	int fd = mkstemp(path);
	json_object *j, *sys, *e, *v;
	struct ms_run r;
	int notify = 0;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, prof, strlen(prof)), (ssize_t)strlen(prof));
	close(fd);
	r = ms_run_in(NULL, (const char *const[]){ bin(), "seccomp", "--notify-mounts", "--listener",
				       "/run/sv.sock", "--merge", path, NULL });
	unlink(path);
	cr_assert_eq(r.status, 0, "%s", r.err);
	j = json_tokener_parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	cr_assert(json_object_object_get_ex(j, "defaultAction", &v));
	cr_expect_str_eq(json_object_get_string(v), "SCMP_ACT_ERRNO");
	cr_assert(json_object_object_get_ex(j, "listenerPath", &v));
	cr_expect_str_eq(json_object_get_string(v), "/run/sv.sock");
	cr_assert(json_object_object_get_ex(j, "syscalls", &sys));
	cr_expect_eq(json_object_array_length(sys), 3, "%s", r.out);
	for (size_t i = 0; i < json_object_array_length(sys); i++) {
		e = json_object_array_get_idx(sys, i);
		cr_assert(json_object_object_get_ex(e, "action", &v));
		if (!strcmp(json_object_get_string(v), "SCMP_ACT_NOTIFY")) {
			notify++;
			cr_expect(has_name(e, "mount") && has_name(e, "umount2") &&
				  has_name(e, "fsopen") && has_name(e, "move_mount"));
			continue;
		}
		/* every other entry lost only the mount names */
		cr_expect_not(has_name(e, "mount") || has_name(e, "umount2") || has_name(e, "fsopen"),
			      "%s", r.out);
	}
	cr_expect_eq(notify, 1);
	e = json_object_array_get_idx(sys, 0);
	cr_expect(has_name(e, "read") && has_name(e, "write"), "%s", r.out);
	e = json_object_array_get_idx(sys, 1);
	cr_expect(has_name(e, "personality") && json_object_object_get_ex(e, "args", &v),
		  "%s", r.out);
	json_object_put(j);
	ms_run_free(&r);

	r = ms_run_in(NULL, (const char *const[]){ bin(), "seccomp", "--notify-mounts", NULL });
	cr_expect_eq(r.status, 2, "no --listener accepted");
	ms_run_free(&r);
	r = ms_run_in(NULL, (const char *const[]){ bin(), "seccomp", "--notify-mounts", "--listener",
				       "/run/sv.sock", NULL });
	cr_expect_eq(r.status, 0);
	j = json_tokener_parse(r.out);
	cr_expect(j && json_object_object_get_ex(j, "listenerPath", &v), "%s", r.out);
	json_object_put(j);
	ms_run_free(&r);
}

/*
 * A profile that already sends calls to a listener of its own: merging
 * would silently redirect its SCMP_ACT_NOTIFY rules to mntsnap, which
 * refuses them. Refused, naming the existing listener, nothing on stdout.
 */
Test(supervisor_cli, notify_mounts_merge_refuses_an_existing_listener)
{
	static const char prof[] =
		"{\"defaultAction\": \"SCMP_ACT_ALLOW\",\n"
		" \"listenerPath\": \"/run/other-agent.sock\",\n"
		" \"syscalls\": [{\"names\": [\"mknod\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}\n";
	static const char cfg[] =
		"{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\":\n"
		" {\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"/run/cfg-agent.sock\"}}}\n";
	const char *texts[] = { prof, cfg }, *names[] = { "/run/other-agent.sock", "/run/cfg-agent.sock" };

	for (int k = 0; k < 2; k++) {
		char path[] = "/tmp/sv-cli-prof-XXXXXX";
		int fd = mkstemp(path);
		struct ms_run r;

		cr_assert_geq(fd, 0);
		cr_assert_eq(write(fd, texts[k], strlen(texts[k])), (ssize_t)strlen(texts[k]));
		close(fd);
		r = ms_run_in(NULL, (const char *const[]){ bin(), "seccomp", "--notify-mounts",
					       "--listener", "/run/sv.sock", "--merge", path, NULL });
		unlink(path);
		cr_expect_eq(r.status, 2, "merged over a listener: %s", r.out);
		cr_expect_str_eq(r.out, "", "stdout");
		cr_expect(strstr(r.err, names[k]), "the existing listener not named: %s", r.err);
		ms_run_free(&r);
	}
}

/* ---- supervise as a listenerPath agent ---------------------------------- */

static pid_t start_agent_to(const char *audit, const char *err_file);

static pid_t start_agent(void)
{
	return start_agent_to(AUDIT, NULL);
}

/* The agent with its audit in audit and, with err_file, its stderr there. */
static pid_t start_agent_to(const char *audit, const char *err_file)
{
	static const char pol[] =
		"{\"rules\": [{\"fstype\": \"tmpfs\", \"target\": \"" BASE "/*\", "
		"\"force\": [\"noexec\"]}]}";
	const char *b = bin();
	struct stat st;
	pid_t pid;

	ms_write_text(BASE "/policy.json", pol);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* stderr stays the test's: its messages (and any sanitizer
		 * report) land in the test log */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (err_file) {
			int fd = open(err_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

			if (fd < 0 || dup2(fd, 2) != 2)
				_exit(126);
		}
		execl(b, b, "supervise", "--policy", BASE "/policy.json", "--listen", SOCK,
		      "--audit", audit, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && stat(SOCK, &st); i++)
		usleep(10000);
	cr_assert_eq(stat(SOCK, &st), 0, "the agent did not listen");
	cr_expect_eq(st.st_mode & 0777, 0600, "socket mode %o", st.st_mode & 0777);
	return pid;
}

/* Connect and send text, with fd in SCM_RIGHTS when fd >= 0: 0 or errno. */
static int try_send(const char *text, int fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = SOCK };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)text, strlen(text) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;

	if (s < 0)
		return errno;
	if (fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    sendmsg(s, &mh, 0) != (ssize_t)strlen(text))
		e = errno;
	close(s);
	return e;
}

static void send_msg(const char *text, int fd)
{
	int e = try_send(text, fd);

	cr_assert_eq(e, 0, "send: %s", strerror(e));
}

/*
 * A "container": its own mount namespace, a filter notifying mount(2),
 * no capabilities. It sends its notify fd itself (as crun does), then
 * mounts tmpfs on BASE/ok and BASE/../x and reports both errnos.
 */
static pid_t container(int *res_pipe, uid_t send_as, const char *id)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mount, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, MNTSNAP_K_SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, MNTSNAP_K_SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	int p[2];
	pid_t pid;

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd, res[2];
		char state[256];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(CLONE_NEWNS) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(100);
		fd = (int)syscall(SYS_seccomp, MNTSNAP_K_SECCOMP_SET_MODE_FILTER,
				  MNTSNAP_K_SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		if (fd < 0)
			_exit(101);
		snprintf(state, sizeof(state),
			 "{\"ociVersion\": \"1.0.2\", \"fds\": [\"seccompFd\"], \"pid\": %d, "
			 "\"state\": {\"ociVersion\": \"1.0.2\", \"id\": \"%s\", \"status\": "
			 "\"creating\", \"pid\": %d, \"bundle\": \"/\"}}",
			 getpid(), id, getpid());
		if (send_as && setresuid(send_as, send_as, send_as))
			_exit(102);
		/* no Criterion calls in here: this is not the test's process */
		res[0] = try_send(state, fd);
		res[1] = 0;
		close(fd);
		if (!send_as && !res[0] && !strcmp(id, "big")) {
			/* the longest request: every byte escaped in the audit line */
			static char src[4096], tgt[4096], type[256], data[4096];

			memset(src, 0xff, sizeof(src) - 1);
			memset(tgt, 0xfe, sizeof(tgt) - 1);
			tgt[0] = '/';
			memset(type, 0xfd, sizeof(type) - 1);
			memset(data, 0x01, sizeof(data) - 1);
			res[0] = mount(src, tgt, type, 0, data) ? errno : 0;
		} else if (!send_as && !res[0]) {
			res[0] = mount("none", BASE "/ok", "tmpfs", 0, NULL) ? errno : 0;
			res[1] = mount("none", "/mnt", "tmpfs", 0, NULL) ? errno : 0;
		}
		if (write(p[1], res, sizeof(res)) != sizeof(res))
			_exit(103);
		/* stay until the test has read our mountinfo */
		pause();
		_exit(0);
	}
	close(p[1]);
	*res_pipe = p[0];
	return pid;
}

Test(supervisor_cli, agent_serves_containers_and_survives_bad_peers, .timeout = 60)
{
	char path[64], *mi, *audit;
	int res[2], rp, rps[2], st;
	pid_t agent, c, cs[2];

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/ok");
	agent = start_agent();
	/* garbage, a state without an fd, an fd without a state */
	send_msg("this is not JSON", -1);
	send_msg("{\"fds\": [\"seccompFd\"], \"state\": {\"id\": \"x\"}}", -1);
	send_msg("{}", open("/dev/null", O_RDONLY | O_CLOEXEC));
	/* a peer of another uid cannot even connect: the socket is 0600 */
	c = container(&rp, 65534, "foreign");
	cr_assert_eq(read(rp, res, sizeof(res)), (ssize_t)sizeof(res));
	cr_expect_eq(res[0], EACCES, "uid 65534 connected: %s", strerror(res[0]));
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	close(rp);
	cr_expect_eq(waitpid(agent, &st, WNOHANG), 0, "the agent died");

	/* two containers at once, each with its own notify fd */
	for (int i = 0; i < 2; i++) {
		cs[i] = container(&rps[i], 0, i ? "c2" : "c1");
		cr_assert_eq(read(rps[i], res, sizeof(res)), (ssize_t)sizeof(res));
		cr_expect_eq(res[0], 0, "c%d allowed mount: %s", i + 1, strerror(res[0]));
		cr_expect_eq(res[1], EPERM, "c%d mount on /mnt: %s", i + 1, strerror(res[1]));
	}
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", cs[i]);
		mi = ms_read_file(path, NULL);
		cr_expect(strstr(mi, " " BASE "/ok rw,noexec"), "not mounted with noexec:\n%s", mi);
		free(mi);
		kill(cs[i], SIGKILL);
		waitpid(cs[i], &st, 0);
		close(rps[i]);
	}

	/* a request as long as can be: its line is cut to a bound, and says so */
	c = container(&rp, 0, "big");
	cr_assert_eq(read(rp, res, sizeof(res)), (ssize_t)sizeof(res));
	cr_expect_eq(res[0], EPERM, "the big request: %s", strerror(res[0]));
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	close(rp);

	kill(agent, SIGTERM);
	cr_assert_eq(waitpid(agent, &st, 0), agent);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "agent status %d", st);
	audit = ms_read_file(AUDIT, NULL);
	{
		static const char marker[] = "\"truncated\":{\"fstype\":255,\"source\":4095,"
					     "\"target\":4095,\"options_asked\":4095}";
		int big = 0;

		for (char *l = audit; (l = strstr(l, "\"container\":\"big\"")); l++) {
			const char *nl = strchr(l, '\n');

			big++;
			cr_assert(nl);
			/* 7 fields of at most 1 KiB, the rest short (it was 68 KB) */
			cr_expect(nl - l > 4096 && nl - l < 8 * 1024 + 1024, "a line of %td bytes",
				  nl - l);
			cr_expect(memmem(l, (size_t)(nl - l), marker, sizeof(marker) - 1),
				  "no truncation marker");
		}
		cr_expect_eq(big, 1, "audit lines for the big request: %d", big);
	}
	cr_expect(strstr(audit, "\"container\":\"c1\""), "%s", audit);
	cr_expect(strstr(audit, "\"container\":\"c2\""), "%s", audit);
	cr_expect(strstr(audit, "\"result\":0,"), "%s", audit);
	free(audit);
}

/*
 * The agent's audit sink (already started) takes no line: the container's
 * first mount is refused, not performed unaudited, and the agent says so
 * on stderr.
 */
static void expect_denied_unaudited(pid_t agent, const char *what)
{
	char path[64], *mi, *err;
	int res[2], rp, st;
	pid_t c;

	c = container(&rp, 0, "c1");
	cr_assert_eq(read(rp, res, sizeof(res)), (ssize_t)sizeof(res));
	cr_expect_eq(res[0], EPERM, "allowed mount with %s: %s", what, strerror(res[0]));
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", c);
	mi = ms_read_file(path, NULL);
	cr_expect_not(strstr(mi, " " BASE "/ok "), "performed unaudited (%s):\n%s", what, mi);
	free(mi);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	close(rp);
	kill(agent, SIGTERM);
	cr_assert_eq(waitpid(agent, &st, 0), agent);
	err = ms_read_file(BASE "/agent.err", NULL);
	cr_expect(strstr(err, "denying"), "stderr (%s): %s", what, err);
	free(err);
}

/* The audit log on a full filesystem. */
Test(supervisor_cli, full_audit_log_denies, .timeout = 60)
{
	char fill[4096];
	pid_t agent;
	int fd;

	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/ok");
	ms_mkdir_p(BASE "/log");
	cr_assert_eq(mount("none", BASE "/log", "tmpfs", 0, "size=64k"), 0);
	agent = start_agent_to(BASE "/log/audit.jsonl", BASE "/agent.err");
	/* fill what is left of it */
	memset(fill, 'x', sizeof(fill));
	fd = open(BASE "/log/fill", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	while (write(fd, fill, sizeof(fill)) > 0)
		;
	close(fd);
	expect_denied_unaudited(agent, "a full audit log");
}

/* An audit sink that is no regular file and takes no line (/dev/full). */
Test(supervisor_cli, unwritable_audit_device_denies, .timeout = 60)
{
	ms_private_ns(BASE);
	ms_mkdir_p(BASE "/ok");
	expect_denied_unaudited(start_agent_to("/dev/full", BASE "/agent.err"),
				"/dev/full as audit");
}

/*
 * A service starts with 1024 fds (soft); each container costs the agent
 * fds, so it raises the soft limit to the hard one at start.
 */
Test(supervisor_cli, raises_the_fd_limit, .timeout = 60)
{
	char path[64], *lim, *l;
	unsigned long long soft = 0, hard = 0;
	struct rlimit rl, low;
	pid_t agent;
	int st;

	ms_private_ns(BASE);
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max <= 256 || rl.rlim_max == RLIM_INFINITY)
		cr_skip_test("hard fd limit %llu", (unsigned long long)rl.rlim_max);
	low = rl;
	low.rlim_cur = 256;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	agent = start_agent();
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	snprintf(path, sizeof(path), "/proc/%d/limits", agent);
	lim = ms_read_file(path, NULL);
	l = strstr(lim, "Max open files");
	cr_assert(l, "%s", lim);
	cr_assert_eq(sscanf(l + 14, "%llu %llu", &soft, &hard), 2, "%s", l);
	cr_expect_eq(soft, (unsigned long long)rl.rlim_max, "soft %llu, hard %llu", soft, hard);
	cr_expect_eq(hard, (unsigned long long)rl.rlim_max);
	free(lim);
	kill(agent, SIGTERM);
	cr_assert_eq(waitpid(agent, &st, 0), agent);
}
