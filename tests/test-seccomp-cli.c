// SPDX-License-Identifier: MIT
/*
 * seccomp CLI: `mntsnap seccomp` prints exactly the committed fragments in
 * seccomp/generated/ (made from its output), and --merge merges idempotently, keeps
 * the rest of the profile, writes valid JSON, and refuses bad input with
 * exit 2 and no output. MNTSNAP_BIN and MNTSNAP_SRCDIR come from meson.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "seccomp-merge.h"

struct run {
	int status; /* exit code, or -1 */
	char *out, *err;
};

static const char *bin(void)
{
	const char *b = getenv("MNTSNAP_BIN");

	if (!b)
		cr_skip_test("MNTSNAP_BIN not set (run through meson test)");
	return b;
}

static char *src_path(const char *rel)
{
	const char *s = getenv("MNTSNAP_SRCDIR");
	char *p;

	cr_assert(s, "MNTSNAP_SRCDIR not set");
	cr_assert(asprintf(&p, "%s/%s", s, rel) > 0);
	return p;
}

/*
 * Run argv with stdout and stderr on pipes. stderr is small, so reading
 * stdout first cannot deadlock on it filling up.
 */
static struct run run_argv(const char *const *argv)
{
	int o[2], e[2], st;
	struct run r;
	pid_t pid;

	cr_assert_eq(pipe2(o, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(e, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		/* an ASan build's LeakSanitizer needs ptrace, which the
		 * launcher's filter denies: it would abort at exit */
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
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return r;
}

/* Run mntsnap seccomp ARGS... */
static struct run run_v(const char *const *args)
{
	const char *argv[32] = { bin(), "seccomp" };
	size_t n = 2;

	for (; *args; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	return run_argv(argv);
}

#define RUN(...) run_v((const char *const[]){ __VA_ARGS__, NULL })

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

static json_object *get(json_object *o, const char *key);

static json_object *parse(const char *text, const char *what)
{
	json_object *j = json_tokener_parse(text);

	cr_assert(j, "%s: not valid JSON:\n%s", what, text);
	return j;
}

/* ---- fragments == seccomp/generated/ files ---------------------------------- */

static void assert_fragment(const char *file, const char *const *args)
{
	char *path = src_path(file);
	char *want = ms_read_file(path, NULL);
	struct run r = run_v(args);

	cr_assert_eq(r.status, 0, "%s: exit %d: %s", file, r.status, r.err);
	ms_assert_text_eq(r.out, want, file);
	run_free(&r);
	free(want);
	free(path);
}

Test(seccomp_cli, fragments_equal_generated_files)
{
	static const char *const sets[] = { "query", "full" };
	int n = 0;

	for (int s = 0; s < 2; s++) {
		char file[128];
		const char *dk[] = { "--format", "docker", "--set", sets[s], NULL };
		const char *sd[] = { "--format", "systemd", "--set", sets[s], NULL };
		const char *c[] = { "--format", "c", "--set", sets[s], NULL };

		snprintf(file, sizeof(file), "seccomp/generated/docker-%s.json", sets[s]);
		assert_fragment(file, dk);
		snprintf(file, sizeof(file), "seccomp/generated/systemd-%s.conf", sets[s]);
		assert_fragment(file, sd);
		snprintf(file, sizeof(file), "seccomp/generated/mntsnap-nr-%s.h", sets[s]);
		assert_fragment(file, c);
		n += 3;
	}
	assert_fragment("seccomp/generated/oci-query.json",
			(const char *const[]){ "--format", "oci", "--set", "query", NULL });
	cr_assert_eq(n + 1, 7);
}

/* OCI has no capability gate: the full set needs the container's caps */
Test(seccomp_cli, oci_full_needs_caps)
{
	struct run r = RUN("--format", "oci", "--set", "full");

	cr_assert_eq(r.status, 2);
	cr_assert_str_empty(r.out);
	cr_assert(strstr(r.err, "--caps"), "%s", r.err);
	run_free(&r);
	/* without CAP_SYS_ADMIN: statmount/listmount only */
	r = RUN("--format", "oci", "--set", "full", "--caps", "CAP_KILL,CAP_CHOWN");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_null(strstr(r.out, "setns"), "%s", r.out);
	cr_assert(strstr(r.out, "statmount"));
	run_free(&r);
	r = RUN("--format", "oci", "--set", "full", "--caps", "CAP_KILL,CAP_SYS_ADMIN");
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "\"setns\"") && strstr(r.out, "\"unshare\""), "%s", r.out);
	run_free(&r);
}

/* Docker format: everything but statmount/listmount is gated on CAP_SYS_ADMIN */
Test(seccomp_cli, docker_full_is_gated)
{
	struct run r = RUN("--format", "docker", "--set", "full");
	json_object *j, *e;

	cr_assert_eq(r.status, 0, "%s", r.err);
	j = parse(r.out, "docker full");
	for (size_t i = 0; i < json_object_array_length(j); i++) {
		json_object *names, *inc;
		bool query;

		e = json_object_array_get_idx(j, i);
		names = get(e, "names");
		query = !strcmp(json_object_get_string(json_object_array_get_idx(names, 0)),
				"statmount");
		if (query) {
			cr_assert_not(json_object_object_get_ex(e, "includes", NULL));
			continue;
		}
		cr_assert(json_object_object_get_ex(e, "includes", &inc), "entry %zu ungated", i);
		cr_assert_str_eq(json_object_get_string(
					 json_object_array_get_idx(get(inc, "caps"), 0)),
				 "CAP_SYS_ADMIN");
	}
	json_object_put(j);
	run_free(&r);
}

Test(seccomp_cli, default_is_oci_query)
{
	struct run r = RUN("--set", "query");
	char *path = src_path("seccomp/generated/oci-query.json");
	char *want = ms_read_file(path, NULL);

	cr_assert_eq(r.status, 0);
	ms_assert_text_eq(r.out, want, "default output");
	run_free(&r);
	free(want);
	free(path);
}

Test(seccomp_cli, c_one_arch)
{
	struct run r = RUN("--format", "c", "--arch", "mips64n32", "--set", "query");

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "#define MNTSNAP_SC_NR_mips64n32_statmount 6457\n"), "%s", r.out);
	cr_assert(strstr(r.out, "#define MNTSNAP_SC_AUDIT_ARCH_mips64n32 0xa0000008U\n"));
	cr_assert_null(strstr(r.out, "x86_64"), "other arches leaked in");
	run_free(&r);
}

Test(seccomp_cli, bad_options)
{
	static const char *const cases[][6] = {
		{ "--format", "yaml", NULL },
		{ "--set", "most", NULL },
		{ "--arch", "vax", "--format", "c", NULL },
		{ "--arch", "x86_64", NULL },			/* oci has no numbers */
		{ "--format", "systemd", "--errno-enosys", NULL },
		{ "--errno-enosys", NULL },			/* only with --merge */
		{ "--caps", "CAP_SYS_ADMIN", NULL },		/* only with --merge / oci full */
		{ "--kernel", "6.8", NULL },			/* only with --merge */
		{ "--format", "oci", "--set", "full", NULL },	/* needs --caps */
		{ "--bogus", "x", NULL },
		{ "--set", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = run_v(cases[i]);

		cr_assert_eq(r.status, 2, "case %zu (%s): exit %d", i, cases[i][0], r.status);
		cr_assert_str_empty(r.out, "case %zu printed to stdout", i);
		cr_assert(strstr(r.err, "mntsnap:"), "case %zu: no message", i);
		run_free(&r);
	}
}

/* ---- --merge --------------------------------------------------------------------- */

static json_object *merged(const char *fixture, const char *const *extra, char **ret_text)
{
	char *p = src_path(fixture);
	const char *args[16] = { "--merge", p };
	size_t n = 2;
	struct run r;
	json_object *j;

	for (; extra && *extra; extra++)
		args[n++] = *extra;
	args[n] = NULL;
	r = run_v(args);
	cr_assert_eq(r.status, 0, "merge %s: exit %d: %s", fixture, r.status, r.err);
	j = parse(r.out, fixture);
	if (ret_text)
		*ret_text = strdup(r.out);
	run_free(&r);
	free(p);
	return j;
}

static json_object *load_fixture(const char *fixture)
{
	char *p = src_path(fixture);
	char *t = ms_read_file(p, NULL);
	json_object *j = parse(t, fixture);

	free(t);
	free(p);
	return j;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no key %s", key);
	return v;
}

/* Entries allowing name (action ALLOW) */
static int count_allow(json_object *sys, const char *name, const char **ret_comment)
{
	int n = 0;

	for (size_t i = 0; i < json_object_array_length(sys); i++) {
		json_object *e = json_object_array_get_idx(sys, i), *names, *c;

		if (strcmp(json_object_get_string(get(e, "action")), "SCMP_ACT_ALLOW") ||
		    !json_object_object_get_ex(e, "names", &names))
			continue;
		for (size_t k = 0; k < json_object_array_length(names); k++)
			if (!strcmp(json_object_get_string(json_object_array_get_idx(names, k)), name)) {
				n++;
				if (ret_comment && json_object_object_get_ex(e, "comment", &c))
					*ret_comment = json_object_get_string(c);
			}
	}
	return n;
}

Test(seccomp_cli, merge_docker_keeps_profile_and_adds_fragment)
{
	json_object *orig = load_fixture("tests/data/seccomp/docker-default.json");
	json_object *m = merged("tests/data/seccomp/docker-default.json",
				(const char *const[]){ "--errno-enosys", NULL }, NULL);
	json_object *os = get(orig, "syscalls"), *ms = get(m, "syscalls");
	size_t n = json_object_array_length(os);
	const char *comment = NULL;

	/* everything that was there is still there, unchanged and in order */
	cr_assert_gt(json_object_array_length(ms), n);
	for (size_t i = 0; i < n; i++)
		cr_assert(json_object_equal(json_object_array_get_idx(os, i),
					    json_object_array_get_idx(ms, i)),
			  "entry %zu changed", i);
	json_object_object_foreach(orig, k, v) {
		if (strcmp(k, "syscalls"))
			cr_assert(json_object_equal(v, get(m, k)), "top-level %s changed", k);
	}
	cr_assert_eq(count_allow(os, "statmount", NULL), 0, "fixture should lack statmount");
	cr_assert_eq(count_allow(ms, "statmount", &comment), 1);
	cr_assert_str_eq(comment, "mntsnap: allow statmount, listmount");
	cr_assert_eq(count_allow(ms, "listmount", NULL), 1);
	json_object_put(orig);
	json_object_put(m);
}

static void assert_idempotent(const char *fixture, const char *const *extra)
{
	char *once, *twice, *tmp = strdup("/tmp/mntsnap-merge-XXXXXX");
	int fd = mkstemp(tmp);
	const char *args[16] = { "--merge", tmp };
	size_t n = 2;
	struct run r;

	json_object_put(merged(fixture, extra, &once));
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, once, strlen(once)), (ssize_t)strlen(once));
	close(fd);
	for (; extra && *extra; extra++)
		args[n++] = *extra;
	args[n] = NULL;
	r = run_v(args);
	unlink(tmp);
	cr_assert_eq(r.status, 0, "%s", r.err);
	twice = r.out;
	ms_assert_text_eq(twice, once, "second merge");
	free(once);
	free(tmp);
	free(r.err);
	free(twice);
}

Test(seccomp_cli, merge_is_idempotent)
{
	static const char *const opts[][6] = {
		{ NULL }, { "--errno-enosys", NULL }, { "--set", "full", "--caps", "CAP_SYS_ADMIN", NULL },
		{ "--set", "full", "--errno-enosys", "--caps", "CAP_SYS_ADMIN", NULL },
	};

	for (size_t i = 0; i < 4; i++) {
		assert_idempotent("tests/data/seccomp/docker-default.json", opts[i]);
		assert_idempotent("tests/data/seccomp/oci-profile.json", opts[i]);
	}
}

Test(seccomp_cli, merge_skips_what_profile_already_allows)
{
	json_object *orig = load_fixture("tests/data/seccomp/oci-profile.json");
	json_object *once = merged("tests/data/seccomp/oci-profile.json", NULL, NULL);
	json_object *ms = get(once, "syscalls");

	/* OCI: one new entry (no comments in OCI), statmount allowed once */
	cr_assert_eq(json_object_array_length(ms),
		     json_object_array_length(get(orig, "syscalls")) + 1);
	cr_assert_eq(count_allow(ms, "statmount", NULL), 1);
	json_object_put(orig);
	json_object_put(once);
}

Test(seccomp_cli, docker_to_oci_resolves_for_this_host)
{
	json_object *m = merged("tests/data/seccomp/docker-default.json",
				(const char *const[]){ "--format", "oci", "--errno-enosys", NULL },
				NULL);
	json_object *sys = get(m, "syscalls"), *v;

	cr_assert_not(json_object_object_get_ex(m, "archMap", NULL));
	if (!strcmp(json_object_get_string(json_object_array_get_idx(get(m, "architectures"), 0)),
		    "SCMP_ARCH_X86_64"))
		cr_assert_eq(json_object_array_length(get(m, "architectures")), 3);
	for (size_t i = 0; i < json_object_array_length(sys); i++) {
		json_object *e = json_object_array_get_idx(sys, i);

		json_object_object_foreach(e, k, val) {
			(void)val;
			cr_assert(!strcmp(k, "names") || !strcmp(k, "action") ||
				  !strcmp(k, "errnoRet") || !strcmp(k, "args"),
				  "Docker-only key %s left in OCI output", k);
		}
	}
	/* default caps lack CAP_SYS_ADMIN: mount API gets our ENOSYS, not allow */
	cr_assert_eq(count_allow(sys, "fsopen", NULL), 0);
	cr_assert_eq(count_allow(sys, "statmount", NULL), 1);
	cr_assert(json_object_object_get_ex(m, "defaultAction", &v));
	json_object_put(m);

	m = merged("tests/data/seccomp/docker-default.json",
		   (const char *const[]){ "--format", "oci", "--caps", "CAP_SYS_ADMIN,CAP_KILL",
					  "--set", "full", NULL }, NULL);
	sys = get(m, "syscalls");
	cr_assert_geq(count_allow(sys, "fsopen", NULL), 1, "CAP_SYS_ADMIN rules dropped");
	json_object_put(m);
}

Test(seccomp_cli, merge_refuses_bad_profiles)
{
	static const char *const bad[] = {
		"tests/data/seccomp/bad-syntax.json",
		"tests/data/seccomp/unknown-format.json",
		"tests/data/seccomp/bad-names.json",
		"tests/data/seccomp/bad-action.json",
		"tests/data/seccomp/does-not-exist.json",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *p = src_path(bad[i]);
		struct run r = RUN("--merge", p);

		cr_assert_eq(r.status, 2, "%s: exit %d", bad[i], r.status);
		cr_assert_str_empty(r.out, "%s: output despite error", bad[i]);
		cr_assert(strstr(r.err, "mntsnap: seccomp"), "%s: no message: %s", bad[i], r.err);
		run_free(&r);
		free(p);
	}
	/* the Docker profile is not an OCI one */
	{
		char *p = src_path("tests/data/seccomp/docker-default.json");
		struct run r = RUN("--merge", p, "--format", "c");

		cr_assert_eq(r.status, 2);
		cr_assert_str_empty(r.out);
		run_free(&r);
		free(p);
	}
}

Test(seccomp_cli, merge_into_oci_config_json)
{
	json_object *orig = load_fixture("tests/data/seccomp/oci-config.json");
	json_object *m = merged("tests/data/seccomp/oci-config.json", NULL, NULL);
	json_object *sc = get(get(m, "linux"), "seccomp");

	cr_assert_eq(count_allow(get(sc, "syscalls"), "statmount", NULL), 1);
	cr_assert_eq(count_allow(get(sc, "syscalls"), "read", NULL), 1);
	json_object_object_foreach(orig, k, v) {
		if (strcmp(k, "linux"))
			cr_assert(json_object_equal(v, get(m, k)), "%s changed", k);
	}
	json_object_put(orig);
	json_object_put(m);
	{
		char *p = src_path("tests/data/seccomp/oci-config-no-seccomp.json");
		struct run r = RUN("--merge", p);

		cr_assert_eq(r.status, 2);
		cr_assert_str_empty(r.out);
		cr_assert(strstr(r.err, "linux.seccomp"), "%s", r.err);
		run_free(&r);
		free(p);
	}
}

/* ---- mntsnap-launch ------------------------------------------------------------ */

static struct run launch(const char *const *args)
{
	const char *l = getenv("MNTSNAP_LAUNCH_BIN");
	const char *argv[24] = { l };
	size_t n = 1;

	if (!l)
		cr_skip_test("MNTSNAP_LAUNCH_BIN not set (built only with libseccomp)");
	ms_require_root();
	for (; *args; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	return run_argv(argv);
}

#define LAUNCH(...) launch((const char *const[]){ __VA_ARGS__, NULL })

Test(seccomp_cli, launcher_allows_statmount_through_adapter)
{
	struct run r = LAUNCH("--", bin(), "list", "--backend", "statmount", "--format", "mountinfo");

	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_assert(strstr(r.out, " / "), "no root mount in:\n%s", r.out);
	run_free(&r);
	/* the same filter without the adapter: the profile's EPERM */
	r = LAUNCH("--no-adapter", "--", bin(), "list", "--backend", "statmount");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "Operation not permitted"), "%s", r.err);
	run_free(&r);
	/* ENOSYS default: mntsnap's auto backend falls back and still works */
	r = LAUNCH("--no-adapter", "--default", "enosys", "--", bin(), "list", "--format", "mountinfo");
	cr_assert_eq(r.status, 0, "fallback failed: %s", r.err);
	run_free(&r);
	r = LAUNCH("--no-adapter", "--default", "enosys", "--", bin(), "list", "--backend",
		   "statmount");
	cr_assert(strstr(r.err, "Function not implemented"), "%s", r.err);
	run_free(&r);
}

Test(seccomp_cli, launcher_denies_mount_api)
{
	struct run r;

	if (access("/bin/busybox", X_OK))
		cr_skip_test("no /bin/busybox");
	r = LAUNCH("--set", "query", "--", "/bin/busybox", "unshare", "-u", "/bin/busybox", "true");
	cr_assert_neq(r.status, 0);
	cr_assert(strstr(r.err, "Operation not permitted"), "%s", r.err);
	run_free(&r);
	/* -u (UTS): busybox's -m also calls mount(2), which stays denied */
	r = LAUNCH("--set", "full", "--", "/bin/busybox", "unshare", "-u", "/bin/busybox", "true");
	cr_assert_eq(r.status, 0, "full set should allow unshare: %s", r.err);
	run_free(&r);
}

Test(seccomp_cli, launcher_exports_bpf)
{
	char path[] = "/tmp/mntsnap-bpf-XXXXXX";
	int fd = mkstemp(path);
	struct run r;
	size_t n;
	char *bpf;

	cr_assert_geq(fd, 0);
	close(fd);
	r = LAUNCH("--export-bpf", path);
	cr_assert_eq(r.status, 0, "%s", r.err);
	bpf = ms_read_file(path, &n);
	unlink(path);
	/* struct sock_filter is 8 bytes; a 3-arch allow-list is well over 50 */
	cr_assert_eq(n % 8, 0);
	cr_assert_gt(n / 8, 50, "only %zu instructions", n / 8);
	free(bpf);
	run_free(&r);
}

/* ---- --merge: validation like dockerd, and what it never changes -------------- */

/* Run `mntsnap seccomp --merge TMPFILE ARGS...` on text. */
static struct run merge_text(const char *text, const char *const *extra)
{
	char path[] = "/tmp/mntsnap-merge-in-XXXXXX";
	const char *args[16] = { "--merge", path };
	int fd = mkstemp(path);
	size_t n = 2;
	struct run r;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	for (; extra && *extra; extra++)
		args[n++] = *extra;
	args[n] = NULL;
	r = run_v(args);
	unlink(path);
	return r;
}

#define P(body) "{\"defaultAction\": \"SCMP_ACT_ERRNO\", " body "}"
#define S(entry) P("\"syscalls\": [" entry "]")

Test(seccomp_cli, merge_rejects_like_dockerd_with_json_path)
{
	static const struct {
		const char *text, *path, *why;
	} cases[] = {
		/* dockerd's own refusals */
		{ S("{\"name\": \"read\", \"names\": [\"write\"], \"action\": \"SCMP_ACT_ALLOW\"}"),
		  "$.syscalls[0]", "both \"name\" and \"names\"" },
		{ P("\"architectures\": [\"SCMP_ARCH_X86_64\"], \"archMap\": [{\"architecture\": "
		    "\"SCMP_ARCH_X86_64\", \"subArchitectures\": []}]"),
		  "$", "both \"architectures\" and \"archMap\"" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": "
		    "{\"minKernel\": \"abc\"}}"), "$.syscalls[0].includes.minKernel", "abc" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"excludes\": "
		    "{\"minKernel\": \"0.0\"}}"), "$.syscalls[0].excludes.minKernel", "0.0" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": "
		    "{\"minKernel\": \"6.8.1\"}}"), "$.syscalls[0].includes.minKernel", "6.8.1" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": "
		    "{\"minKernel\": \"256.1\"}}"), "$.syscalls[0].includes.minKernel", "256.1" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_PERMIT\"}"),
		  "$.syscalls[0].action", "unknown action" },
		{ P("\"defaultErrnoRet\": \"1\""), "$.defaultErrnoRet", "unsigned integer" },
		/* null where a string or array belongs (this crashed) */
		{ S("{\"name\": null, \"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}"),
		  "$.syscalls[0]", "both" },
		{ S("{\"name\": null, \"action\": \"SCMP_ACT_ALLOW\"}"), "$.syscalls[0].name",
		  "not null" },
		{ S("{\"names\": [\"read\", null], \"action\": \"SCMP_ACT_ALLOW\"}"),
		  "$.syscalls[0].names[1]", "not null" },
		{ P("\"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": "
		    "[null, 5, {}]}]"), "$.archMap[0].subArchitectures[0]", "not null" },
		/* numbers out of range */
		{ P("\"defaultErrnoRet\": 99999999999999999999"), "$.defaultErrnoRet",
		  "beyond 64 bits" },
		{ P("\"defaultErrnoRet\": 4294967296"), "$.defaultErrnoRet", "out of range" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": -1}"),
		  "$.syscalls[0].errnoRet", "negative" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": "
		    "6, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}"), "$.syscalls[0].args[0].index",
		  "out of range" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": "
		    "0, \"value\": 18446744073709551616, \"op\": \"SCMP_CMP_EQ\"}]}"),
		  "$.syscalls[0].args[0].value", "beyond 64 bits" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"errnoRet\": 1}"),
		  "$.syscalls[0]", "takes none" },
		/* a raw control character in a string: Go refuses it, json-c took it
		 * and wrote it back escaped (found by the fuzzer) */
		{ S("{\"names\": [\"re\tad\"], \"action\": \"SCMP_ACT_ALLOW\"}"),
		  "$.syscalls[0].names[0]", "control character" },
		{ P("\"listenerPath\": \"/run/a\nb\"") , "$.listenerPath", "control character" },
		/* trailing data, and text that only starts like JSON */
		{ P("") " {}", "$", "JSON" },
		{ "22 33 0:21 / /proc rw\n", "$", "JSON" },
		/* a byte order mark: Go's encoding/json refuses it; said as such */
		{ "\xef\xbb\xbf" P(""), "$", "byte order mark" },
		/* a config takes OCI only */
		{ "{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": " S(
			  "{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"comment\": \"x\"}")
		  "}}", "$.linux.seccomp", "Docker-only keys" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = merge_text(cases[i].text, NULL);
		char want[128];

		snprintf(want, sizeof(want), ": %s: ", cases[i].path);
		cr_assert_eq(r.status, 2, "case %zu: exit %d\n%s", i, r.status, r.out);
		cr_assert_str_empty(r.out, "case %zu printed", i);
		cr_assert(strstr(r.err, want), "case %zu: no path %s in: %s", i, cases[i].path, r.err);
		cr_assert(strstr(r.err, cases[i].why), "case %zu: no '%s' in: %s", i, cases[i].why,
			  r.err);
		run_free(&r);
	}
}

/* What dockerd and containers/common accept must go through. */
/* A Docker rule's comment names what the rule holds, not what it might. */
Test(seccomp_cli, comment_names_only_the_added_syscalls)
{
	static const char *const docker[] = { "--format", "docker", NULL };
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ S("{\"names\": [\"statmount\"], \"action\": \"SCMP_ACT_ALLOW\"}"),
		  "\"comment\": \"mntsnap: allow listmount\"" },
		{ S("{\"names\": [\"listmount\"], \"action\": \"SCMP_ACT_ALLOW\"}"),
		  "\"comment\": \"mntsnap: allow statmount\"" },
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"}"),
		  "\"comment\": \"mntsnap: allow statmount, listmount\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = merge_text(cases[i].text, docker);

		cr_assert_eq(r.status, 0, "case %zu: %s", i, r.err);
		cr_expect(strstr(r.out, cases[i].want), "case %zu: no %s in:\n%s", i, cases[i].want,
			  r.out);
		run_free(&r);
	}
}

Test(seccomp_cli, merge_accepts_what_runtimes_write)
{
	static const char *const ok[] = {
		/* Go writes empty slices as null; "" minKernel means no gate */
		S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": null, "
		  "\"includes\": {\"minKernel\": \"\"}}"),
		P("\"archMap\": [{\"architecture\": \"SCMP_ARCH_X86_64\", \"subArchitectures\": null}], "
		  "\"syscalls\": null"),
		P("\"defaultErrnoRet\": 38, \"defaultErrno\": \"ENOSYS\""),
		S("{\"name\": \"read\", \"action\": \"SCMP_ACT_ERRNO\", \"errno\": \"EPERM\"}"),
		S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": 5, "
		  "\"value\": 18446744073709551615, \"valueTwo\": 0, \"op\": \"SCMP_CMP_MASKED_EQ\"}]}"),
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct run r = merge_text(ok[i], NULL);

		cr_assert_eq(r.status, 0, "case %zu: exit %d: %s", i, r.status, r.err);
		json_object_put(parse(r.out, "merged"));
		run_free(&r);
	}
}

/* A user's entry whose comment starts with "mntsnap:" is the user's. */
Test(seccomp_cli, merge_keeps_user_entry_with_our_comment_prefix)
{
	static const char text[] = S("{\"comment\": \"mntsnap: my own rule\", \"names\": [\"chmod\"], "
				     "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": {}}");
	struct run r = merge_text(text, NULL);
	json_object *m;

	cr_assert_eq(r.status, 0, "%s", r.err);
	m = parse(r.out, "merged");
	cr_assert_eq(count_allow(get(m, "syscalls"), "chmod", NULL), 1, "%s", r.out);
	cr_assert_eq(count_allow(get(m, "syscalls"), "statmount", NULL), 1);
	json_object_put(m);
	run_free(&r);
}

/* --errno-enosys: only statmount/listmount rules change errno. */
Test(seccomp_cli, errno_enosys_only_touches_statmount_rules)
{
	static const char text[] = S("{\"names\": [\"setns\", \"statmount\", \"unshare\"], "
				     "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1}, "
				     "{\"names\": [\"listmount\"], \"action\": \"SCMP_ACT_ERRNO\"}");
	struct run r = merge_text(text, (const char *const[]){ "--errno-enosys", NULL });
	json_object *m, *sys, *e;

	cr_assert_eq(r.status, 0, "%s", r.err);
	m = parse(r.out, "merged");
	sys = get(m, "syscalls");
	/* setns/unshare keep EPERM; statmount split off with ENOSYS; listmount
	 * rule gets ENOSYS; no allow is added for names the profile decides */
	cr_assert_eq(json_object_array_length(sys), 3, "%s", r.out);
	e = json_object_array_get_idx(sys, 0);
	cr_assert_eq(json_object_array_length(get(e, "names")), 2);
	cr_assert_eq(json_object_get_int(get(e, "errnoRet")), 1);
	e = json_object_array_get_idx(sys, 1);
	cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(e, "names"), 0)),
			 "statmount");
	cr_assert_eq(json_object_get_int(get(e, "errnoRet")), 38);
	e = json_object_array_get_idx(sys, 2);
	cr_assert_eq(json_object_get_int(get(e, "errnoRet")), 38);
	cr_assert_eq(count_allow(sys, "statmount", NULL), 0);
	json_object_put(m);
	/* and again: nothing more changes */
	{
		struct run r2 = merge_text(r.out, (const char *const[]){ "--errno-enosys", NULL });

		cr_assert_eq(r2.status, 0);
		ms_assert_text_eq(r2.out, r.out, "second --errno-enosys merge");
		run_free(&r2);
	}
	run_free(&r);
}

/* Gated Docker entries in a file an OCI runtime reads would be unconditional. */
Test(seccomp_cli, merge_refuses_gated_docker_entries_in_oci_profile)
{
	char *p = src_path("tests/data/seccomp/real/containerd-default.json");
	struct run r = RUN("--merge", p, "--format", "docker", "--set", "full");

	cr_assert_eq(r.status, 2);
	cr_assert_str_empty(r.out);
	cr_assert(strstr(r.err, "$: --format docker --set full on an OCI profile"), "%s", r.err);
	run_free(&r);
	/* the query set has no gate to lose */
	r = RUN("--merge", p, "--format", "docker");
	cr_assert_eq(r.status, 0, "%s", r.err);
	run_free(&r);
	free(p);
}

Test(seccomp_cli, merge_refuses_docker_output_for_oci_config)
{
	char *p = src_path("tests/data/seccomp/oci-config.json");
	struct run r = RUN("--merge", p, "--format", "docker");

	cr_assert_eq(r.status, 2);
	cr_assert_str_empty(r.out);
	cr_assert(strstr(r.err, "$.linux.seccomp: --format docker"), "%s", r.err);
	run_free(&r);
	free(p);
}

/* Every output write is checked: a full disk is exit 2. */
Test(seccomp_cli, write_errors_fail)
{
	static const char *const cmds[][8] = {
		{ "seccomp", "--format", "docker", "--set", "full", NULL },
		{ "seccomp", "--merge", "@moby", NULL },
	};
	char *moby = src_path("tests/data/seccomp/real/moby-default.json");

	for (size_t i = 0; i < 2; i++) {
		const char *argv[12] = { bin() };
		size_t n = 1;
		int st;
		pid_t pid;

		for (const char *const *a = cmds[i]; *a; a++)
			argv[n++] = strcmp(*a, "@moby") ? *a : moby;
		argv[n] = NULL;
		pid = fork();
		cr_assert_geq(pid, 0);
		if (pid == 0) {
			int fd = open("/dev/full", O_WRONLY | O_CLOEXEC), dn = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (fd < 0 || dn < 0)
				_exit(126);
			dup2(fd, 1);
			dup2(dn, 2);
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		cr_assert_eq(waitpid(pid, &st, 0), pid);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "case %zu: status %#x", i, st);
	}
	free(moby);
}

/* ---- the merger called directly: what the CLI cannot vary (host arch) ------- */

/* Is "read" kept when a Docker profile gates it on arches, resolved on machine? */
static bool kept_on(const char *machine, const char *arches)
{
	struct mntsnap__merge_opts o = { .format = MNTSNAP__SC_OCI, .machine = machine,
					 .kmaj = 6, .kmin = 18, .caps = "CAP_KILL" };
	char text[512], *out = NULL, *err = NULL;
	bool kept;

	snprintf(text, sizeof(text),
		 "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"syscalls\": [{\"names\": [\"read\"], "
		 "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"arches\": [%s]}}]}", arches);
	cr_assert_eq(mntsnap__sc_merge(text, strlen(text), &o, &out, &err), 0, "%s", err);
	kept = strstr(out, "\"read\"");
	free(out);
	return kept;
}

/* includes/excludes.arches hold moby's names (goToNative), not GOARCH's */
Test(seccomp_cli, resolution_uses_moby_arch_names)
{
	cr_assert(kept_on("x86_64", "\"amd64\""));
	cr_assert(kept_on("i686", "\"x86\""));
	cr_assert_not(kept_on("i686", "\"386\""));
	cr_assert(kept_on("loongarch64", "\"loongarch64\""));
	cr_assert_not(kept_on("loongarch64", "\"loong64\""));
	cr_assert(kept_on("aarch64", "\"arm64\""));
	cr_assert_not(kept_on("x86_64", "\"x86\""));
}

/*
 * A profile merged by a version that did not keep the gates (ungated
 * ioctl/statx/pidfd_open, ENOSYS for setns/unshare) comes out of a merge
 * exactly as the pristine profile does.
 */
Test(seccomp_cli, merge_repairs_what_older_versions_wrote)
{
	static const char *const opts[][3] = { { NULL }, { "--set", "full", NULL },
					       { "--errno-enosys", NULL } };

	for (size_t i = 0; i < 3; i++) {
		char *old, *fresh;
		json_object *o = merged("tests/data/seccomp/old-merge-moby.json", opts[i], &old);
		json_object *f = merged("tests/data/seccomp/real/moby-default.json", opts[i], &fresh);

		/* the same profile (each text keeps its own input's layout) */
		cr_assert(json_object_equal(o, f), "re-merged old output vs pristine merge:\n%s\n%s",
			  old, fresh);
		cr_assert_null(strstr(old, "ENOSYS without"), "%s", old);
		json_object_put(o);
		json_object_put(f);
		free(old);
		free(fresh);
	}
}

/* ---- readers that could disagree with the merger about the input ------------- */

/*
 * json-c and Go's encoding/json (dockerd, containers/common) must read one
 * value for every key: json-c cuts a key at \u0000 (so "action\u0000" is
 * "action" to json-c and an unknown key to Go) and keeps the last of two
 * equal keys, and a string with \u0000 compares differently in C and Go.
 * Each case below was merged into a profile dockerd reads with more allowed
 * than the input, or a gate the merger saw differently; all must be refused.
 */
Test(seccomp_cli, merge_refuses_what_readers_could_read_differently)
{
	static const struct {
		const char *text, *path, *why;
		const char *const args[8];
	} cases[] = {
		/* Go: action ERRNO ("action\u0000" is an unknown key); json-c: ALLOW */
		{ S("{\"names\": [\"setns\", \"unshare\"], \"action\": \"SCMP_ACT_ERRNO\", "
		    "\"action\\u0000\": \"SCMP_ACT_ALLOW\"}"), "$.syscalls[0]", "escape in a key",
		  { NULL } },
		{ S("{\"names\": [\"setns\"], \"action\": \"SCMP_ACT_ALLOW\", "
		    "\"action\": \"SCMP_ACT_ERRNO\"}"), "$.syscalls[0]", "duplicate key \"action\"",
		  { NULL } },
		{ P("\"defaultAction\": \"SCMP_ACT_ALLOW\""), "$", "duplicate key \"defaultAction\"",
		  { NULL } },
		{ S("{\"n\\u0061mes\": [\"setns\"], \"action\": \"SCMP_ACT_ALLOW\"}"), "$.syscalls[0]",
		  "escape in a key", { NULL } },
		/* dockerd: "CAP_SYS_ADMIN\x00" is no capability, the rule never applies */
		{ S("{\"names\": [\"setns\"], \"action\": \"SCMP_ACT_ALLOW\", \"includes\": "
		    "{\"caps\": [\"CAP_SYS_ADMIN\\u0000\"]}}"), "$.syscalls[0].includes.caps[0]",
		  "NUL", { "--format", "oci", "--caps", "CAP_SYS_ADMIN", "--kernel", "6.18", NULL } },
		{ S("{\"names\": [\"setns\"], \"action\": \"SCMP_ACT_ERRNO\", \"excludes\": "
		    "{\"arches\": [\"amd64\\u0000\"]}}"), "$.syscalls[0].excludes.arches[0]", "NUL",
		  { NULL } },
		{ S("{\"names\": [\"statmount\\u0000\"], \"action\": \"SCMP_ACT_ERRNO\"}"),
		  "$.syscalls[0].names[0]", "NUL", { NULL } },
		/* Go's decoder refuses -0 for an unsigned integer */
		{ S("{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": -0}"),
		  "$.syscalls[0].errnoRet", "-0", { NULL } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = merge_text(cases[i].text, cases[i].args);
		char want[128];

		snprintf(want, sizeof(want), ": %s: ", cases[i].path);
		cr_assert_eq(r.status, 2, "case %zu: exit %d\n%s", i, r.status, r.out);
		cr_assert_str_empty(r.out, "case %zu printed", i);
		cr_assert(strstr(r.err, want), "case %zu: no path %s in: %s", i, cases[i].path, r.err);
		cr_assert(strstr(r.err, cases[i].why), "case %zu: no '%s' in: %s", i, cases[i].why,
			  r.err);
		run_free(&r);
	}
}

/* Entries with comment c in the merged syscalls */
static int count_comment(json_object *sys, const char *c)
{
	int n = 0;

	for (size_t i = 0; i < json_object_array_length(sys); i++) {
		json_object *v;

		if (json_object_object_get_ex(json_object_array_get_idx(sys, i), "comment", &v) &&
		    !strcmp(json_object_get_string(v), c))
			n++;
	}
	return n;
}

#define LEGACY_NOADMIN(names)                                                          \
	"{\"comment\": \"mntsnap: ENOSYS without CAP_SYS_ADMIN\", \"names\": [" names "], " \
	"\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38, \"excludes\": {\"caps\": "       \
	"[\"CAP_SYS_ADMIN\"]}}"
#define LEGACY_BEFORE(ver, names)                                                      \
	"{\"comment\": \"mntsnap: ENOSYS before Linux " ver "\", \"names\": [" names "], "  \
	"\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38, \"excludes\": {\"minKernel\": "  \
	"\"" ver "\"}}"

/*
 * An entry shaped like the ENOSYS denials older versions wrote is removed
 * only where that cannot allow more: never when the default allows, or a
 * rule it shadows (later, or with args; for the CAP_SYS_ADMIN one: not
 * itself gated on CAP_SYS_ADMIN) would allow the syscall without it.
 */
Test(seccomp_cli, merge_keeps_legacy_denials_that_still_deny)
{
	static const struct {
		const char *text, *comment, *name;	/* name: a syscall it denies */
		int allows;				/* the input's own for name */
	} keep[] = {
		{ "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": ["
		  LEGACY_NOADMIN("\"setns\", \"unshare\"") "]}",
		  "mntsnap: ENOSYS without CAP_SYS_ADMIN", "setns", 0 },
		{ "{\"defaultAction\": \"SCMP_ACT_LOG\", \"syscalls\": ["
		  LEGACY_BEFORE("5.2", "\"open_tree\"") "]}",
		  "mntsnap: ENOSYS before Linux 5.2", "open_tree", 0 },
		{ S(LEGACY_NOADMIN("\"setns\"") ", {\"names\": [\"setns\"], "
		    "\"action\": \"SCMP_ACT_ALLOW\"}"),
		  "mntsnap: ENOSYS without CAP_SYS_ADMIN", "setns", 1 },
		{ S("{\"names\": [\"setns\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": "
		    "1, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}, " LEGACY_NOADMIN("\"setns\"")),
		  "mntsnap: ENOSYS without CAP_SYS_ADMIN", "setns", 1 },
		/* an ALLOW rule under an ALLOW default is dropped by the runtimes: it
		 * decides nothing, the denial after it does */
		{ "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": "
		  "[\"setns\"], \"action\": \"SCMP_ACT_ALLOW\"}, " LEGACY_NOADMIN("\"setns\"") "]}",
		  "mntsnap: ENOSYS without CAP_SYS_ADMIN", "setns", 1 },
		/* containers/common ignores minKernel: this denial holds on every kernel */
		{ S(LEGACY_BEFORE("5.2", "\"fsopen\"") ", {\"names\": [\"fsopen\"], "
		    "\"action\": \"SCMP_ACT_ALLOW\", \"includes\": {\"caps\": [\"CAP_SYS_ADMIN\"]}}"),
		  "mntsnap: ENOSYS before Linux 5.2", "fsopen", 1 },
	};
	static const char *const opts[][4] = { { NULL }, { "--set", "full", NULL } };

	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		for (size_t o = 0; o < 2; o++) {
			struct run r = merge_text(keep[i].text, opts[o]);
			json_object *m;

			cr_assert_eq(r.status, 0, "case %zu: %s", i, r.err);
			m = parse(r.out, "merged");
			cr_assert_eq(count_comment(get(m, "syscalls"), keep[i].comment), 1,
				     "case %zu/%zu: denial dropped:\n%s", i, o, r.out);
			cr_assert_eq(count_allow(get(m, "syscalls"), keep[i].name, NULL),
				     keep[i].allows, "case %zu/%zu: an allow for %s was added:\n%s",
				     i, o, keep[i].name, r.out);
			json_object_put(m);
			run_free(&r);
		}
}

/* An explicit denial of statmount (any action, any gate, args) stays the profile's. */
Test(seccomp_cli, merge_leaves_explicit_statmount_rules_alone)
{
	static const char *const texts[] = {
		S("{\"names\": [\"statmount\"], \"action\": \"SCMP_ACT_KILL\"}"),
		S("{\"names\": [\"statmount\"], \"action\": \"SCMP_ACT_ALLOW\", \"args\": [{\"index\": "
		  "3, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}"),
		S("{\"names\": [\"statmount\"], \"action\": \"SCMP_ACT_ERRNO\", \"excludes\": "
		  "{\"arches\": [\"arm64\"]}}"),
		S("{\"names\": [\"statmount\"], \"action\": \"SCMP_ACT_NOTIFY\"}"),
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct run r = merge_text(texts[i], NULL);
		json_object *m;

		cr_assert_eq(r.status, 0, "case %zu: %s", i, r.err);
		m = parse(r.out, "merged");
		cr_assert_eq(count_allow(get(m, "syscalls"), "statmount", NULL),
			     strstr(texts[i], "SCMP_ACT_ALLOW") ? 1 : 0, "case %zu:\n%s", i, r.out);
		cr_assert_eq(count_allow(get(m, "syscalls"), "listmount", NULL), 1);
		json_object_put(m);
		run_free(&r);
	}
}

/* --errno-enosys reaches statmount rules under an ALLOW default too. */
Test(seccomp_cli, errno_enosys_with_allow_default)
{
	static const char text[] = "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": "
				   "[{\"names\": [\"statmount\", \"setns\"], \"action\": "
				   "\"SCMP_ACT_ERRNO\", \"errnoRet\": 1}]}";
	struct run r = merge_text(text, (const char *const[]){ "--errno-enosys", NULL });
	json_object *m, *sys;

	cr_assert_eq(r.status, 0, "%s", r.err);
	m = parse(r.out, "merged");
	sys = get(m, "syscalls");
	cr_assert_eq(json_object_array_length(sys), 2, "%s", r.out);
	cr_assert_eq(json_object_get_int(get(json_object_array_get_idx(sys, 0), "errnoRet")), 1);
	cr_assert_eq(json_object_get_int(get(json_object_array_get_idx(sys, 1), "errnoRet")), 38);
	cr_assert_eq(count_allow(sys, "listmount", NULL), 0, "ALLOW default got rules:\n%s", r.out);
	json_object_put(m);
	run_free(&r);
}

/*
 * A user's ERRNO rule that --errno-enosys turns into the exact shape of an
 * entry older mntsnap versions wrote ("ENOSYS before Linux 6.8", errno 38)
 * is one from then on: the same merge must treat it so, or merging the
 * result again changes it (found by fuzz-seccomp-merge).
 */
Test(seccomp_cli, errno_enosys_reaches_its_fixed_point)
{
	static const char *const rules[] = {
		S("{\"comment\": \"mntsnap: ENOSYS before Linux 6.8\", \"names\": [\"statmount\", "
		  "\"listmount\"], \"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 19, "
		  "\"excludes\": {\"minKernel\": \"6.8\"}}"),
		S("{\"comment\": \"mntsnap: ENOSYS without CAP_SYS_ADMIN\", \"names\": [\"statmount\"], "
		  "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 1, "
		  "\"excludes\": {\"caps\": [\"CAP_SYS_ADMIN\"]}}"),
	};
	static const char *const modes[][6] = {
		{ "--errno-enosys", NULL },
		{ "--errno-enosys", "--set", "full", "--caps", "CAP_KILL,CAP_SYS_ADMIN", NULL },
	};

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
			struct run once = merge_text(rules[i], modes[k]), twice;

			cr_assert_eq(once.status, 0, "%s", once.err);
			twice = merge_text(once.out, modes[k]);
			cr_assert_eq(twice.status, 0, "%s", twice.err);
			ms_assert_text_eq(twice.out, once.out, "second merge");
			run_free(&once);
			run_free(&twice);
		}
	}
}

/*
 * An ALLOW default without a syscalls list (or with an empty or null one)
 * already allows statmount and listmount: the merge adds nothing and says
 * so. It once walked the missing list and aborted in json-c.
 */
Test(seccomp_cli, allow_default_without_syscalls)
{
	static const char *const texts[] = {
		"{\n    \"defaultAction\": \"SCMP_ACT_ALLOW\"\n}\n",
		"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": []}\n",
		"{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"syscalls\": null}\n",
		"{\"ociVersion\": \"1.0.2\", \"linux\": {\"seccomp\": "
		"{\"defaultAction\": \"SCMP_ACT_ALLOW\"}}}\n",
	};
	static const char *const modes[][5] = {
		{ NULL }, { "--errno-enosys", NULL }, { "--caps", "CAP_KILL", NULL },
		{ "--set", "full", "--caps", "CAP_SYS_ADMIN", NULL },
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
			struct run r = merge_text(texts[i], modes[k]);

			cr_assert_eq(r.status, 0, "%s with %s: status %d: %s", texts[i],
				     modes[k][0] ? modes[k][0] : "no option", r.status, r.err);
			cr_assert_str_eq(r.out, texts[i], "%s", r.out);
			run_free(&r);
		}
	}
}

/*
 * --errno-enosys: a rule without errnoRet answers EPERM whatever the
 * default's errno (runtime-spec; runc and crun), so under an ENOSYS default
 * it still needs the change.
 */
Test(seccomp_cli, errno_enosys_rule_errno_is_eperm_not_default)
{
	static const char text[] = "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 38, "
				   "\"syscalls\": [{\"names\": [\"listmount\"], \"action\": "
				   "\"SCMP_ACT_ERRNO\"}]}";
	struct run r = merge_text(text, (const char *const[]){ "--errno-enosys", NULL });
	json_object *m, *e;

	cr_assert_eq(r.status, 0, "%s", r.err);
	m = parse(r.out, "merged");
	e = json_object_array_get_idx(get(m, "syscalls"), 0);
	cr_assert_eq(json_object_get_int(get(e, "errnoRet")), 38, "%s", r.out);
	json_object_put(m);
	run_free(&r);
}

/*
 * mntsnap's own Docker-format entry in an OCI profile (--format docker with
 * the query set is allowed there) does not make the file a Docker profile:
 * a later --set full would otherwise put CAP_SYS_ADMIN gates into a file
 * an OCI runtime reads without them.
 */
Test(seccomp_cli, own_entries_do_not_make_a_docker_profile)
{
	char *k8s = src_path("tests/data/seccomp/real/k8s-fine-grained.json");
	char path[] = "/tmp/mntsnap-merge-own-XXXXXX";
	struct run r = RUN("--merge", k8s, "--format", "docker");
	int fd = mkstemp(path);
	json_object *m;

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(strstr(r.out, "\"comment\": \"mntsnap: allow statmount, listmount\""), "%s",
		  r.out);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, r.out, strlen(r.out)), (ssize_t)strlen(r.out));
	close(fd);
	run_free(&r);
	r = RUN("--merge", path, "--set", "full");
	cr_assert_eq(r.status, 2, "gated entries for an OCI reader:\n%s", r.out);
	cr_assert(strstr(r.err, "--caps"), "%s", r.err);
	run_free(&r);
	r = RUN("--merge", path, "--set", "full", "--format", "docker");
	cr_assert_eq(r.status, 2, "gated entries for an OCI reader:\n%s", r.out);
	cr_assert(strstr(r.err, "on an OCI profile"), "%s", r.err);
	run_free(&r);
	r = RUN("--merge", path, "--set", "full", "--caps", "CAP_KILL");
	cr_assert_eq(r.status, 0, "%s", r.err);
	m = parse(r.out, "merged");
	cr_assert_eq(count_allow(get(m, "syscalls"), "setns", NULL), 0, "%s", r.out);
	cr_assert_null(strstr(r.out, "includes"), "%s", r.out);
	json_object_put(m);
	run_free(&r);
	unlink(path);
	free(k8s);
}

/*
 * An OCI config states the container's bounding set: --caps claiming
 * CAP_SYS_ADMIN for a container that lacks it would allow unshare (a new
 * user namespace needs no capability) and the rest of the full set to it.
 */
Test(seccomp_cli, config_bounding_set_decides_over_caps)
{
	static const char cfg[] =
		"{\"ociVersion\": \"1.0.2\", \"process\": {\"capabilities\": {\"bounding\": "
		"[%s]}}, \"linux\": {\"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\"}}}";
	const char *full[] = { "--set", "full", "--caps", "CAP_KILL,CAP_SYS_ADMIN", NULL };
	char text[512];
	struct run r;
	json_object *m;

	snprintf(text, sizeof(text), cfg, "\"CAP_KILL\"");
	r = merge_text(text, full);
	cr_assert_eq(r.status, 2, "unshare for a container without CAP_SYS_ADMIN:\n%s", r.out);
	cr_assert_str_empty(r.out);
	cr_assert(strstr(r.err, "$.process.capabilities.bounding: "), "%s", r.err);
	run_free(&r);
	/* the same set agreed: the full set is added */
	snprintf(text, sizeof(text), cfg, "\"CAP_KILL\", \"CAP_SYS_ADMIN\"");
	r = merge_text(text, full);
	cr_assert_eq(r.status, 0, "%s", r.err);
	m = parse(r.out, "merged");
	cr_assert_eq(count_allow(get(get(get(m, "linux"), "seccomp"), "syscalls"), "unshare", NULL),
		     1, "%s", r.out);
	json_object_put(m);
	run_free(&r);
}
