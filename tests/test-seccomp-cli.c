// SPDX-License-Identifier: MIT
/*
 * seccomp CLI: `mntsnap seccomp` prints exactly what seccomp/gen.py
 * generated from the same table, and --merge merges idempotently, keeps
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
	struct run r = LAUNCH("--", bin(), "list", "--backend", "statmount", "-o", "mountinfo");

	cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_assert(strstr(r.out, " / "), "no root mount in:\n%s", r.out);
	run_free(&r);
	/* the same filter without the adapter: the profile's EPERM */
	r = LAUNCH("--no-adapter", "--", bin(), "list", "--backend", "statmount");
	cr_assert_eq(r.status, 2);
	cr_assert(strstr(r.err, "Operation not permitted"), "%s", r.err);
	run_free(&r);
	/* ENOSYS default: mntsnap's auto backend falls back and still works */
	r = LAUNCH("--no-adapter", "--default", "enosys", "--", bin(), "list", "-o", "mountinfo");
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
