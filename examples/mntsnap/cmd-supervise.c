// SPDX-License-Identifier: MIT
/*
 * mntsnap supervise: an OCI seccomp agent. A runtime whose config has
 * linux.seccomp.listenerPath connects to the socket and sends one message:
 * the container process state as JSON, with the seccomp notify fd in
 * SCM_RIGHTS (its name, "seccompFd", in the state's "fds" list). Every
 * container so attached is served by one mntsnap_supervisor with the
 * policy from --policy; one audit line per decision goes to --audit.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"
#include "json-mini.h"
#include "policy-load.h"
#include "mntsnap-supervisor.h"

#define MAX_MSG (1 << 20)
#define MAX_FDS 16

static int load_policy(const char *file, struct mntsnap_policy **ret)
{
	size_t len = 0;
	char *text, *msg = NULL;
	int fd, rc;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cli_fail(-errno, "--policy %s", file), -EINVAL;
	rc = cli_read_fd(fd, MAX_MSG, &text, &len);
	close(fd);
	if (rc)
		return cli_fail(rc, "--policy %s", file), -EINVAL;
	rc = policy_load_text(file, text, len, ret, &msg);
	free(text);
	if (rc == -EINVAL && msg)
		fprintf(stderr, "mntsnap: %s\n", msg);
	else if (rc)
		cli_fail(rc, "--policy %s", file);
	free(msg);
	return rc;
}

/* ---- the listener --------------------------------------------------------- */

struct agent {
	struct mntsnap_supervisor *sv;
	int audit_fd;
	const char *audit_name;
	unsigned long served;
	char *line;     /* MNTSNAP_SV_AUDIT_LINE_MAX: the longest line any request makes */
	int audit_err;  /* the last write failed: deny until room is proven again */
	bool denying;   /* said so on stderr already */
};

static void on_audit(const struct mntsnap_sv_event *ev, void *data)
{
	struct agent *a = data;
	int n = mntsnap_sv_event_json(ev, a->line, MNTSNAP_SV_AUDIT_LINE_MAX);

	/* one write() per line: O_APPEND keeps concurrent writers' lines whole */
	if (n < 0) {
		fprintf(stderr, "mntsnap: supervise: audit line: %s\n", strerror(-n));
	} else if (write(a->audit_fd, a->line, (size_t)n) != n) {
		a->audit_err = errno ? errno : EIO;
		fprintf(stderr, "mntsnap: supervise: audit write: %s\n", strerror(a->audit_err));
	}
}

/*
 * Room for one more line, proven before a request is acted on: a regular
 * file gets the longest line's blocks allocated past its end
 * (FALLOC_FL_KEEP_SIZE, so the O_APPEND write lands in them); where
 * fallocate is not supported, the filesystem's free space must hold the
 * line. Other sinks (a pipe, a terminal, a device) are probed with a
 * write of no bytes, which reaches the driver without adding anything to
 * the stream: /dev/full refuses it, a pipe (even without a reader) and a
 * terminal take it; a sink that fails only on a real write is caught by
 * the failed write, from the next request on. A failure denies the
 * request: nothing is performed unaudited.
 */
static int reserve_line(struct agent *a)
{
	struct statvfs vfs;
	struct stat st;

	if (fstat(a->audit_fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		if (a->audit_err)
			return -a->audit_err;
		return write(a->audit_fd, "", 0) < 0 ? -errno : 0;
	}
	if (!fallocate(a->audit_fd, FALLOC_FL_KEEP_SIZE, st.st_size, MNTSNAP_SV_AUDIT_LINE_MAX))
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	if (fstatvfs(a->audit_fd, &vfs))
		return -errno;
	return (uint64_t)vfs.f_bavail * vfs.f_frsize >= MNTSNAP_SV_AUDIT_LINE_MAX ? 0 : -ENOSPC;
}

static int on_audit_ready(void *data)
{
	struct agent *a = data;
	int r = reserve_line(a);

	if (r && !a->denying)
		fprintf(stderr, "mntsnap: supervise: audit %s cannot take another line (%s): "
				"denying every request until it can\n", a->audit_name, strerror(-r));
	else if (!r && a->denying)
		fprintf(stderr, "mntsnap: supervise: audit %s writable again\n", a->audit_name);
	a->denying = r != 0;
	if (!r)
		a->audit_err = 0;
	return r;
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return cli_fail(-ENAMETOOLONG, "--listen %s", path), -1;
	strcpy(sa.sun_path, path);
	/* a stale socket from an earlier run; anything else is not ours */
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode))
			return cli_fail(-EEXIST, "--listen %s", path), -1;
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cli_fail(-errno, "socket"), -1;
	/* only our own uid may connect: a notify fd makes us mount for its sender */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, 0600) || listen(fd, 64)) {
		cli_fail(-errno, "--listen %s", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The state JSON's "fds" names the passed fds in order; find "seccompFd". */
static int pick_fd(const struct jm *state, const int *fds, int nfds, const char **ret_id)
{
	const struct jm *names = jm_get(state, "fds"), *st = jm_get(state, "state");
	const struct jm *id = jm_get(st, "id");
	int want = -1;

	for (size_t i = 0; names && names->type == JM_ARRAY && i < names->n; i++)
		if (names->items[i]->type == JM_STRING && !strcmp(names->items[i]->str, "seccompFd"))
			want = (int)i;
	*ret_id = id && id->type == JM_STRING ? id->str : "";
	return want >= 0 && want < nfds ? fds[want] : -1;
}

/* One connection: read the message whole, take the notify fd. */
static void take_connection(struct agent *a, int lfd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * MAX_FDS)], err[256];
	struct timeval tv = { .tv_sec = 2 };
	int fds[MAX_FDS], nfds = 0, c, nfd, r;
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	struct jm *state = NULL;
	const char *id = "";
	struct ucred cred;
	socklen_t cl = sizeof(cred);

	c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0 && (errno == EMFILE || errno == ENFILE)) {
		/* the connection stays queued: poll would report it at once again */
		fprintf(stderr, "mntsnap: supervise: accept: %s\n", strerror(errno));
		usleep(100000);
	}
	if (c < 0 || !buf)
		goto out;
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) || cred.uid != geteuid()) {
		fprintf(stderr, "mntsnap: supervise: refused a peer with another uid\n");
		goto out;
	}
	/* a peer that never finishes cannot stall the containers already served */
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		struct iovec iov = { buf + len, cap - len - 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		ssize_t n = recvmsg(c, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (nfds < MAX_FDS)
					fds[nfds++] = fd;
				else
					close(fd);
			}
		}
		len += (size_t)n;
		/* crun sends one message and closes; stop once it parses */
		if (!jm_parse(buf, len, &state, err, sizeof(err)))
			break;
		if (len + 1 >= cap)
			break;
	}
	if (!state) {
		fprintf(stderr, "mntsnap: supervise: a connection sent no container state\n");
		goto out;
	}
	nfd = pick_fd(state, fds, nfds, &id);
	if (nfd < 0) {
		fprintf(stderr, "mntsnap: supervise: no seccompFd in the message\n");
		goto out;
	}
	r = mntsnap_supervisor_add(a->sv, nfd, id);
	if (r) {
		cli_fail(r, "supervise: container %s", id);
		goto out;
	}
	for (int i = 0; i < nfds; i++)
		if (fds[i] == nfd)
			fds[i] = -1;
	fprintf(stderr, "mntsnap: supervising container %s\n", *id ? id : "(no id)");
out:
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (c >= 0)
		close(c);
	jm_free(state);
	free(buf);
}

static int serve(struct agent *a, int lfd)
{
	sigset_t mask;
	int sfd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0)
		return cli_fail(-errno, "signalfd");
	for (;;) {
		struct pollfd p[3] = { { lfd, POLLIN, 0 },
				       { mntsnap_supervisor_fd(a->sv), POLLIN, 0 },
				       { sfd, POLLIN, 0 } };

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return cli_fail(-errno, "poll");
		}
		if (p[2].revents)
			break; /* SIGTERM/SIGINT: a clean exit */
		if (p[0].revents)
			take_connection(a, lfd);
		if (p[1].revents) {
			int r = mntsnap_supervisor_dispatch(a->sv, 0);

			if (r < 0 && r != -EINTR)
				return cli_fail(r, "supervise");
		}
	}
	close(sfd);
	return 0;
}

/*
 * The soft fd limit up to the hard one: a service starts with 1024, and
 * each container costs the supervisor its notify fd and one per pending
 * placeholder of the new mount API (the library holds those to half the
 * soft limit, so a higher one leaves more room to every container).
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fprintf(stderr, "mntsnap: supervise: raising the fd limit: %s\n", strerror(errno));
}

static void usage(FILE *f)
{
	fputs("usage: mntsnap supervise --policy FILE --listen SOCKET [--audit FILE]\n"
	      "       mntsnap supervise --policy FILE --check\n"
	      "\n"
	      "An OCI seccomp agent: point linux.seccomp.listenerPath at SOCKET and\n"
	      "send mount(2) to it with SCMP_ACT_NOTIFY (see 'mntsnap seccomp\n"
	      "--notify-mounts'). Each mount a container asks for is decided by the\n"
	      "policy and, when allowed, performed inside the container with the\n"
	      "policy's forced options. One JSON line per decision goes to --audit\n"
	      "(default: stdout); a request the audit cannot take a line for is refused.\n"
	      "--check only loads the policy. SIGTERM/SIGINT end it.\n",
	      f);
}

int cmd_supervise(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "policy", required_argument, NULL, 'p' }, { "listen", required_argument, NULL, 'l' },
		{ "audit", required_argument, NULL, 'a' },  { "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	const char *policy = NULL, *sock = NULL, *audit = NULL;
	struct agent a = { .audit_fd = 1, .audit_name = "stdout" };
	struct mntsnap_policy *p = NULL;
	bool check = false;
	int c, lfd = -1, rc;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'p': policy = optarg; break;
		case 'l': sock = optarg; break;
		case 'a': audit = optarg; break;
		case 'c': check = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return CLI_EXIT_ERR;
		}
	}
	if (optind != argc)
		return cli_fail(0, "supervise: unexpected argument '%s' (see --help)", argv[optind]);
	if (!policy)
		return cli_fail(0, "supervise: --policy FILE is missing (see --help)");
	if (!check && !sock)
		return cli_fail(0, "supervise: --listen SOCKET is missing (or --check to only "
				   "load the policy; see --help)");
	if (load_policy(policy, &p))
		return CLI_EXIT_ERR;
	if (check) {
		printf("%s: %zu rules\n", policy, mntsnap_policy_count(p));
		mntsnap_policy_free(p);
		return 0;
	}
	raise_nofile();
	a.line = malloc(MNTSNAP_SV_AUDIT_LINE_MAX);
	if (!a.line) {
		mntsnap_policy_free(p);
		return cli_fail(-ENOMEM, "supervise");
	}
	if (audit) {
		a.audit_name = audit;
		a.audit_fd = open(audit, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (a.audit_fd < 0) {
			free(a.line);
			mntsnap_policy_free(p);
			return cli_fail(-errno, "--audit %s", audit);
		}
	}
	MNTSNAP_OPTS(mntsnap_supervisor_opts, o, .audit = on_audit, .audit_data = &a,
		     .audit_ready = on_audit_ready);
	rc = mntsnap_supervisor_new(p, &o, &a.sv);
	if (rc) {
		cli_fail(rc, "supervise");
		rc = CLI_EXIT_ERR;
		goto out;
	}
	lfd = listen_on(sock);
	rc = lfd < 0 ? CLI_EXIT_ERR : serve(&a, lfd);
	if (lfd >= 0) {
		close(lfd);
		unlink(sock);
	}
out:
	mntsnap_supervisor_free(a.sv);
	free(a.line);
	mntsnap_policy_free(p);
	if (a.audit_fd > 2)
		close(a.audit_fd);
	return rc;
}
