// SPDX-License-Identifier: MIT
/*
 * crun end to end: the statically linked (musl) mntsnap runs as the process
 * of a crun container (busybox-static rootfs) under a seccomp profile made
 * by `mntsnap seccomp --merge` from the Docker-format fixture, and its
 * `list --format mountinfo` must equal the container's own /proc/self/mountinfo.
 *
 * Every real profile (tests/data/seccomp/real) in every merge mode runs
 * too: a container without CAP_SYS_ADMIN must still be refused a user
 * namespace and setns wherever the profile refused them.
 *
 * It also records what the runtime does with the names: crun resolves them
 * with the libseccomp it is linked against (the same .so this test loads),
 * and drops names that library does not know. The raw-number route (BPF
 * from mntsnap-launch --export-bpf, passed in crun's
 * run.oci.seccomp_bpf_data annotation) must allow statmount regardless.
 *
 * Everything happens in a private mount namespace (ms_private_ns), where
 * cgroup2 is mounted for crun --cgroup-manager=disabled.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define BASE "/tmp/mntsnap-crun"
#define BUNDLE BASE "/bundle"
#define ROOTFS BUNDLE "/rootfs"

static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);

		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static const char *crun_bin;

/* Private namespace, cgroup2, rootfs with busybox-static and static mntsnap. */
static void setup(void)
{
	static const char *const dirs[] = { "bin", "proc", "dev", "sys", "tmp", NULL };
	static const char *const links[] = { "sh", "cat", "echo", NULL };
	const char *mntsnap_static = ms_env_exe("MNTSNAP_STATIC_BIN");

	crun_bin = ms_crun_rootfs(BASE, ROOTFS, dirs, links);
	cr_assert(ms_is_static_elf(mntsnap_static), "%s is not a static binary", mntsnap_static);
	ms_copy_file(mntsnap_static, ROOTFS "/bin/mntsnap");
}

/* Bounding set of `crun spec`'s default config; the profile is resolved for it. */
static char *spec_caps(json_object *cfg)
{
	json_object *proc, *caps, *bnd;
	char *s = calloc(1, 1024);

	cr_assert(json_object_object_get_ex(cfg, "process", &proc) &&
		  json_object_object_get_ex(proc, "capabilities", &caps) &&
		  json_object_object_get_ex(caps, "bounding", &bnd));
	for (size_t i = 0; i < json_object_array_length(bnd); i++) {
		if (i)
			strcat(s, ",");
		strncat(s, json_object_get_string(json_object_array_get_idx(bnd, i)), 64);
	}
	return s;
}

/*
 * `mntsnap seccomp --merge FIXTURE ARGS...`, where "@CAPS" in ARGS stands
 * for the container's bounding set.
 */
static json_object *merged_profile_args(const char *fixture, const char *caps,
					const char *const *args)
{
	const char *bin = ms_env_exe("MNTSNAP_BIN");
	const char *argv[24] = { bin, "seccomp", "--merge" };
	size_t n = 3;
	char *path;
	struct ms_run r;
	json_object *j;

	cr_assert(asprintf(&path, "%s/tests/data/seccomp/%s", getenv("MNTSNAP_SRCDIR"), fixture) > 0);
	argv[n++] = path;
	for (; *args; args++)
		argv[n++] = strcmp(*args, "@CAPS") ? *args : caps;
	argv[n] = NULL;
	r = ms_run_in(NULL, argv);
	cr_assert_eq(r.status, 0, "merge %s: %s", fixture, r.err);
	j = json_tokener_parse(r.out);
	cr_assert(j, "merge output is not JSON");
	free(r.out);
	free(r.err);
	free(path);
	return j;
}

static const char script[] =
	"/bin/mntsnap list --format mountinfo; echo \"list rc=$?\"; echo ===; "
	"cat /proc/self/mountinfo; echo ===; "
	"/bin/mntsnap list --backend statmount --format mountinfo 2>&1 >/dev/null; "
	"echo \"statmount rc=$?\"; "
	"/bin/busybox unshare -m /bin/true 2>&1; echo \"unshare rc=$?\"; "
	/* CLONE_NEWUSER needs no capability: only seccomp can refuse it */
	"/bin/busybox unshare -U /bin/echo ok 2>&1; echo \"userns rc=$?\"; "
	/* joining its own user namespace is EINVAL from the kernel, EPERM only
	 * from seccomp */
	"/bin/busybox nsenter -t 1 -U /bin/echo ok 2>&1; echo \"setns rc=$?\"";

struct outcome {
	char *list, *mountinfo, *tail, *crun_err;
};

/* Write config.json (the profile, optional BPF) and run. */
static struct outcome run_container_with(const char *bpf_b64, const char *fixture,
					 const char *const *merge_args)
{
	struct ms_run spec, r;
	json_object *cfg, *proc, *lnx, *args;
	struct outcome o;
	char *text, *caps, *s1, *s2;

	unlink(BUNDLE "/config.json");
	spec = ms_run_in(BUNDLE, (const char *const[]){ crun_bin, "spec", NULL });
	cr_assert_eq(spec.status, 0, "crun spec: %s", spec.err);
	free(spec.out);
	free(spec.err);
	text = ms_read_file(BUNDLE "/config.json", NULL);
	cfg = json_tokener_parse(text);
	free(text);
	cr_assert(cfg);
	caps = spec_caps(cfg);
	cr_assert(json_object_object_get_ex(cfg, "process", &proc));
	cr_assert(json_object_object_get_ex(cfg, "linux", &lnx));
	json_object_object_add(proc, "terminal", json_object_new_boolean(0));
	args = json_object_new_array();
	json_object_array_add(args, json_object_new_string("/bin/sh"));
	json_object_array_add(args, json_object_new_string("-c"));
	json_object_array_add(args, json_object_new_string(script));
	json_object_object_add(proc, "args", args);
	json_object_object_add(lnx, "seccomp", merged_profile_args(fixture, caps, merge_args));
	if (bpf_b64) {
		json_object *ann = json_object_new_object();

		json_object_object_add(ann, "run.oci.seccomp_bpf_data",
				       json_object_new_string(bpf_b64));
		json_object_object_add(cfg, "annotations", ann);
	}
	ms_write_text(BUNDLE "/config.json", json_object_to_json_string_ext(cfg, JSON_C_TO_STRING_PRETTY));
	json_object_put(cfg);
	free(caps);

	r = ms_run_in(BUNDLE, (const char *const[]){ crun_bin, "--debug", "--root", BASE "/state",
						  "--cgroup-manager=disabled", "run",
						  "mntsnap-test", NULL });
	cr_assert_eq(r.status, 0, "crun run: exit %d\nstdout:\n%s\nstderr:\n%s", r.status, r.out,
		     r.err);
	s1 = strstr(r.out, "===\n");
	cr_assert(s1, "no separator in:\n%s", r.out);
	s2 = strstr(s1 + 4, "===\n");
	cr_assert(s2, "no second separator in:\n%s", r.out);
	*s1 = *s2 = '\0';
	o.list = strdup(r.out);
	o.mountinfo = strdup(s1 + 4);
	o.tail = strdup(s2 + 4);
	o.crun_err = r.err;
	free(r.out);
	return o;
}

static struct outcome run_container(const char *bpf_b64, bool enosys)
{
	return run_container_with(bpf_b64, "docker-default.json",
				  (const char *const[]){ "--format", "oci", "--caps", "@CAPS",
							 enosys ? "--errno-enosys" : NULL,
							 NULL });
}

static void outcome_free(struct outcome *o)
{
	free(o->list);
	free(o->mountinfo);
	free(o->tail);
	free(o->crun_err);
}

static void assert_list_matches(const struct outcome *o)
{
	char *rc = strstr(o->list, "list rc=");

	cr_assert(rc, "no list rc in:\n%s", o->list);
	cr_assert_str_eq(rc, "list rc=0\n", "mntsnap list failed: %s", o->list);
	*rc = '\0';
	ms_assert_text_eq(o->list, o->mountinfo, "mntsnap list --format mountinfo vs container mountinfo");
}

/* unshare(CLONE_NEWUSER) and setns answer the profile's EPERM. */
static void assert_namespaces_denied(const struct outcome *o)
{
	const char *u = strstr(o->tail, "userns rc="), *n = strstr(o->tail, "setns rc=");

	cr_assert(u && n, "no userns/setns result in:\n%s", o->tail);
	cr_assert_str_neq(u, "userns rc=0", "unshare -U succeeded:\n%s", o->tail);
	cr_assert(strncmp(u, "userns rc=0\n", 12), "unshare -U succeeded:\n%s", o->tail);
	cr_assert(strncmp(n, "setns rc=0\n", 11), "setns succeeded:\n%s", o->tail);
	cr_assert(strstr(o->tail, "unshare(0x10000000): Operation not permitted") ||
		  strstr(o->tail, "unshare(CLONE_NEWUSER): Operation not permitted") ||
		  strstr(o->tail, "unshare: Operation not permitted") ||
		  strstr(o->tail, "Operation not permitted"), "%s", o->tail);
	cr_assert_null(strstr(o->tail, "Function not implemented"), "%s", o->tail);
	cr_assert_null(strstr(o->tail, "Invalid argument"), "setns reached the kernel:\n%s",
		       o->tail);
}

Test(crun, merged_docker_profile)
{
	bool known = seccomp_syscall_resolve_name("statmount") != __NR_SCMP_ERROR;
	struct outcome o;

	setup();
	o = run_container(NULL, true);
	/* Under either outcome below mntsnap's answer is the kernel's. */
	assert_list_matches(&o);
	cr_log_info("libseccomp %s statmount; in the container: %s", known ? "knows" : "lacks",
		    o.tail);
	if (known) {
		cr_assert(strstr(o.tail, "statmount rc=0"), "%s", o.tail);
	} else {
		/* Measured with crun 1.8.1 + libseccomp 2.5.4: the names are
		 * dropped, the profile's default (EPERM) answers, and mntsnap's
		 * auto backend falls back to /proc/self/mountinfo. */
		cr_assert(strstr(o.crun_err, "unknown seccomp syscall `statmount` ignored"),
			  "crun did not report dropping statmount:\n%s", o.crun_err);
		cr_assert(strstr(o.tail, "Operation not permitted"), "%s", o.tail);
		cr_assert(strstr(o.tail, "statmount rc=2"), "%s", o.tail);
	}
	/* --errno-enosys touches statmount/listmount rules only: without
	 * CAP_SYS_ADMIN the namespace syscalls keep the profile's EPERM. */
	assert_namespaces_denied(&o);
	outcome_free(&o);
}

Test(crun, merged_without_enosys_gives_eperm)
{
	struct outcome o;

	setup();
	o = run_container(NULL, false);
	assert_list_matches(&o);
	cr_assert(strstr(o.tail, "Operation not permitted"), "unshare not EPERM: %s", o.tail);
	cr_assert_null(strstr(o.tail, "Function not implemented"), "%s", o.tail);
	outcome_free(&o);
}

Test(crun, raw_number_bpf_route)
{
	const char *launch = ms_env_exe("MNTSNAP_LAUNCH_BIN");
	struct outcome o;
	struct ms_run r;
	size_t n;
	char *bpf, *b64;

	setup();
	r = ms_run_in(NULL, (const char *const[]){ launch, "--export-bpf", BASE "/filter.bpf", NULL });
	cr_assert_eq(r.status, 0, "export: %s", r.err);
	free(r.out);
	free(r.err);
	bpf = ms_read_file(BASE "/filter.bpf", &n);
	cr_assert_gt(n, 0);
	cr_assert_eq(n % 8, 0, "not a sock_filter array");
	b64 = base64((unsigned char *)bpf, n);
	o = run_container(b64, true);
	assert_list_matches(&o);
	/* The raw-number rules reach the kernel whatever libseccomp knows. */
	cr_assert(strstr(o.tail, "statmount rc=0"), "statmount blocked under BPF route: %s", o.tail);
	/* the annotation's filter replaced the JSON one: its default is EPERM */
	cr_assert(strstr(o.tail, "Operation not permitted"), "unshare: %s", o.tail);
	outcome_free(&o);
	free(bpf);
	free(b64);
}

/*
 * Every real profile in every merge mode, in a container without
 * CAP_SYS_ADMIN (crun spec's bounding set): mntsnap's answer is the
 * container's own table, and user namespaces and setns stay as the
 * profile had them. moby's and containerd's profiles refuse both with
 * EPERM; containers/common allows unshare and setns for everyone (the
 * kernel decides), so there the merge must leave them allowed.
 */
Test(crun, real_profiles_every_mode)
{
	static const struct {
		const char *fixture;
		bool denies_ns;
		const char *args[8];
	} cases[] = {
		{ "real/moby-default.json", true, { "--format", "oci", "--caps", "@CAPS", NULL } },
		{ "real/moby-default.json", true,
		  { "--format", "oci", "--caps", "@CAPS", "--errno-enosys", NULL } },
		{ "real/moby-default.json", true,
		  { "--format", "oci", "--caps", "@CAPS", "--set", "full", NULL } },
		{ "real/containers-common.json", false,
		  { "--format", "oci", "--caps", "@CAPS", NULL } },
		{ "real/containers-common.json", false,
		  { "--format", "oci", "--caps", "@CAPS", "--set", "full", "--errno-enosys",
		    NULL } },
		{ "real/container-libs.json", false,
		  { "--format", "oci", "--caps", "@CAPS", "--errno-enosys", NULL } },
		{ "real/containerd-default.json", true, { NULL } },
		{ "real/containerd-default.json", true, { "--errno-enosys", NULL } },
		{ "real/containerd-default.json", true, { "--set", "full", "--caps", "@CAPS", NULL } },
		/* control: containerd's profile for a CAP_SYS_ADMIN container
		 * allows both, and the probes see it */
		{ "real/containerd-sys-admin.json", false, { NULL } },
	};

	setup();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct outcome o = run_container_with(NULL, cases[i].fixture, cases[i].args);

		cr_log_info("%s %s: %s", cases[i].fixture, cases[i].args[0] ?: "", o.tail);
		assert_list_matches(&o);
		if (cases[i].denies_ns) {
			assert_namespaces_denied(&o);
		} else {
			cr_assert(strstr(o.tail, "userns rc=0\n"), "case %zu: %s", i, o.tail);
			cr_assert(strstr(o.tail, "Invalid argument"), "case %zu: %s", i, o.tail);
		}
		outcome_free(&o);
	}
}
