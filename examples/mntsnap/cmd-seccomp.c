// SPDX-License-Identifier: MIT
/*
 * mntsnap seccomp: print seccomp fragments that allow statmount/listmount
 * (and the rest of mntsnap's syscalls), or merge them into a profile.
 *
 * The fragments come from seccomp/syscalls.csv (compiled in as sctable.h);
 * seccomp/gen.py writes the same fragments into seccomp/generated/, and the
 * seccomp test suite checks that both agree byte for byte. Keep the rules
 * below in step with gen.py.
 *
 * --merge needs json-c (meson option 'json'); it stays out of the core
 * library, and a build without json-c (the static musl CLI) leaves --merge
 * out and says so in --help.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "cli.h"
#include "sctable.h"

#ifndef MNTSNAP_HAVE_JSON
#define MNTSNAP_HAVE_JSON 0
#endif
#if MNTSNAP_HAVE_JSON
#include <json-c/json.h>
#endif

#define SC_ENOSYS 38
#define SC_TAG "mntsnap:"

enum sc_format { SC_OCI, SC_DOCKER, SC_SYSTEMD, SC_C, SC_AUTO };
enum sc_set { SC_QUERY, SC_FULL };

struct sc_args {
	int format;
	int set;
	int arch;		/* column in the table, -1 = all */
	const char *merge;
	const char *caps;	/* --caps for Docker -> OCI resolution */
	bool enosys;
};

/* One syscalls[] entry, the common model of every JSON output. */
struct sc_entry {
	char comment[64];	/* docker only; "" = none */
	const char *names[MNTSNAP_SC_NSYS];
	int n;
	bool enosys;		/* SCMP_ACT_ERRNO + errnoRet 38, else ALLOW */
	bool has_inc, has_exc;	/* docker: "includes" / "excludes" present */
	const char *cap;	/* the one cap in includes/excludes, or NULL */
	const char *min_kernel;	/* minKernel in includes/excludes, or NULL */
};

struct sc_frag {
	struct sc_entry e[2 * MNTSNAP_SC_NSYS + 2];
	int n;
};

/* Names the profile already handles; they are left out of the fragment. */
typedef bool (*sc_skip_fn)(const char *name, void *data);

static const char seccomp_help[] =
	"usage: mntsnap seccomp [--format oci|docker|systemd|c] [--set query|full]\n"
	"                       [--arch ARCH] [--errno-enosys] [--merge PROFILE.json]\n"
	"Print seccomp fragments that allow statmount/listmount (set 'query') or\n"
	"every syscall mntsnap uses (set 'full'), from seccomp/syscalls.csv.\n"
	"  --format F       oci: OCI runtime-spec linux.seccomp.syscalls[] entries\n"
	"                   docker: moby-profile entries (includes caps/minKernel)\n"
	"                   systemd: a SystemCallFilter= line\n"
	"                   c: a header with the syscall numbers per architecture\n"
	"  --set S          query (default) or full\n"
	"  --arch ARCH      with --format c: only this ABI (x86_64, i386, aarch64, ...)\n"
	"  --errno-enosys   where the profile denies these syscalls, answer ENOSYS\n"
	"                   instead of EPERM so callers fall back (mntsnap to\n"
	"                   /proc/PID/mountinfo, libmount to mount(2))\n"
#if MNTSNAP_HAVE_JSON
	"  --merge FILE     merge the fragment into FILE (Docker/moby or OCI profile,\n"
	"                   or an OCI config.json) and print the result; format is\n"
	"                   detected unless --format oci|docker is given. Idempotent.\n"
	"                   --format oci on a Docker profile also resolves it as\n"
	"                   dockerd does (archMap for this host, includes/excludes\n"
	"                   for --caps and this kernel), for runtimes like crun\n"
	"  --caps LIST      bounding set for that resolution, comma-separated\n"
	"                   (default: Docker's default capabilities)\n"
#else
	"  --merge FILE     not available: this mntsnap was built without json-c\n"
#endif
	"  --notify-mounts --listener SOCKET [--merge PROFILE]\n"
	"                   send the mount syscalls to a mount supervisor instead\n"
	"                   (mntsnap supervise); see 'seccomp --notify-mounts --help'\n"
	"Exit status: 0 ok, 2 error (bad option, unreadable or malformed profile).\n";

static bool in_set(const struct mntsnap_sc_sys *s, int set)
{
	return set == SC_FULL || s->query;
}

/* Docker compares "<major>.<minor>" only; older than 5.0 is never gated. */
static const char *min_kernel(const struct mntsnap_sc_sys *s)
{
	return atoi(s->since) >= 5 ? s->since : NULL;
}

static bool str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool no_skip(const char *name, void *data)
{
	(void)name;
	(void)data;
	return false;
}

static struct sc_entry *frag_add(struct sc_frag *f, bool enosys)
{
	struct sc_entry *e = &f->e[f->n++];

	memset(e, 0, sizeof(*e));
	e->enosys = enosys;
	return e;
}

/* Names of (full minus set) that Docker gates on a capability. */
static void add_complement(struct sc_frag *f, int set, bool docker, sc_skip_fn skip, void *d)
{
	struct sc_entry *e = frag_add(f, true);

	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];

		if (!in_set(s, set) && s->cap && !skip(s->name, d))
			e->names[e->n++] = s->name;
	}
	if (docker) {
		snprintf(e->comment, sizeof(e->comment), "%s ENOSYS without CAP_SYS_ADMIN", SC_TAG);
		e->has_exc = true;
		e->cap = "CAP_SYS_ADMIN";
	}
}

static void build_oci(struct sc_frag *f, int set, bool enosys, sc_skip_fn skip, void *d)
{
	struct sc_entry *e = frag_add(f, false);

	for (int i = 0; i < MNTSNAP_SC_NSYS; i++)
		if (in_set(&mntsnap_sc_table[i], set) && !skip(mntsnap_sc_table[i].name, d))
			e->names[e->n++] = mntsnap_sc_table[i].name;
	if (enosys)
		add_complement(f, set, false, skip, d);
}

/* Allow entries grouped by (cap, minKernel), in table order. */
static int docker_groups(struct sc_frag *f, int set, sc_skip_fn skip, void *d)
{
	int first = f->n;

	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];
		struct sc_entry *e = NULL;

		if (!in_set(s, set) || skip(s->name, d))
			continue;
		for (int g = first; g < f->n; g++)
			if (str_eq(f->e[g].cap, s->cap) && str_eq(f->e[g].min_kernel, min_kernel(s)))
				e = &f->e[g];
		if (!e) {
			e = frag_add(f, false);
			snprintf(e->comment, sizeof(e->comment), "%s allow %s", SC_TAG,
				 set == SC_FULL ? "full" : "query");
			e->has_inc = true;
			e->cap = s->cap;
			e->min_kernel = min_kernel(s);
		}
		e->names[e->n++] = s->name;
	}
	return f->n - first;
}

static void build_docker(struct sc_frag *f, int set, bool enosys, sc_skip_fn skip, void *d)
{
	int ng = docker_groups(f, set, skip, d);

	if (!enosys)
		return;
	for (int g = 0; g < ng; g++) {
		const struct sc_entry *a = &f->e[g];
		struct sc_entry *e;

		if (a->cap) {
			e = frag_add(f, true);
			memcpy(e->names, a->names, sizeof(e->names));
			e->n = a->n;
			snprintf(e->comment, sizeof(e->comment), "%s ENOSYS without %s", SC_TAG, a->cap);
			e->has_exc = true;
			e->cap = a->cap;
		}
		if (a->min_kernel) {
			e = frag_add(f, true);
			memcpy(e->names, a->names, sizeof(e->names));
			e->n = a->n;
			snprintf(e->comment, sizeof(e->comment), "%s ENOSYS before Linux %s", SC_TAG,
				 a->min_kernel);
			e->has_exc = true;
			e->min_kernel = a->min_kernel;
		}
	}
	add_complement(f, set, true, skip, d);
}

/* Drop entries left without names (everything skipped or no complement). */
static void frag_compact(struct sc_frag *f)
{
	int n = 0;

	for (int i = 0; i < f->n; i++)
		if (f->e[i].n)
			f->e[n++] = f->e[i];
	f->n = n;
}

static void build(struct sc_frag *f, const struct sc_args *a, sc_skip_fn skip, void *d)
{
	f->n = 0;
	if (a->format == SC_DOCKER)
		build_docker(f, a->set, a->enosys, skip, d);
	else
		build_oci(f, a->set, a->enosys, skip, d);
	frag_compact(f);
}

/* ---- text output, byte-identical to gen.py (json.dumps(indent=2)) -------- */

static void print_filter(FILE *o, const char *key, const struct sc_entry *e)
{
	bool first = true;

	fprintf(o, ",\n    \"%s\": {", key);
	if (e->cap) {
		fprintf(o, "\n      \"caps\": [\n        \"%s\"\n      ]", e->cap);
		first = false;
	}
	if (e->min_kernel)
		fprintf(o, "%s\n      \"minKernel\": \"%s\"", first ? "" : ",", e->min_kernel);
	fputs(e->cap || e->min_kernel ? "\n    }" : "}", o);
}

static void print_entry(FILE *o, const struct sc_entry *e)
{
	fputs("  {\n", o);
	if (e->comment[0])
		fprintf(o, "    \"comment\": \"%s\",\n", e->comment);
	fputs("    \"names\": [\n", o);
	for (int i = 0; i < e->n; i++)
		fprintf(o, "      \"%s\"%s\n", e->names[i], i + 1 < e->n ? "," : "");
	fprintf(o, "    ],\n    \"action\": \"%s\"", e->enosys ? "SCMP_ACT_ERRNO" : "SCMP_ACT_ALLOW");
	if (e->enosys)
		fprintf(o, ",\n    \"errnoRet\": %d", SC_ENOSYS);
	if (e->has_inc)
		print_filter(o, "includes", e);
	if (e->has_exc)
		print_filter(o, "excludes", e);
	fputs("\n  }", o);
}

static void print_frag(FILE *o, const struct sc_frag *f)
{
	fputs("[\n", o);
	for (int i = 0; i < f->n; i++) {
		print_entry(o, &f->e[i]);
		fputs(i + 1 < f->n ? ",\n" : "\n", o);
	}
	fputs("]\n", o);
}

static void print_systemd(FILE *o, int set)
{
	bool first = true;

	fputs("SystemCallFilter=", o);
	for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
		if (!in_set(&mntsnap_sc_table[i], set))
			continue;
		fprintf(o, "%s%s", first ? "" : " ", mntsnap_sc_table[i].name);
		first = false;
	}
	fputc('\n', o);
}

static void print_c(FILE *o, int set, int arch)
{
	const char *sn = set == SC_FULL ? "full" : "query";

	fprintf(o, "/* SPDX-License-Identifier: MIT */\n/*\n"
		   " * Generated from seccomp/syscalls.csv (set \"%s\"): syscall numbers as the\n"
		   " * kernel puts them in seccomp_data.nr (MIPS offsets and the x32 bit\n"
		   " * included), per ABI, with the AUDIT_ARCH value seccomp_data.arch carries.\n"
		   " * A syscall missing on an ABI has no define.\n */\n"
		   "#ifndef MNTSNAP_SECCOMP_NR_%s_H\n#define MNTSNAP_SECCOMP_NR_%s_H\n\n",
		sn, set == SC_FULL ? "FULL" : "QUERY", set == SC_FULL ? "FULL" : "QUERY");
	for (int a = 0; a < MNTSNAP_SC_NARCH; a++) {
		const char *an = mntsnap_sc_arches[a].name;

		if (arch >= 0 && a != arch)
			continue;
		fprintf(o, "/* %s */\n#define MNTSNAP_SC_AUDIT_ARCH_%s 0x%08xU\n", an, an,
			mntsnap_sc_arches[a].audit_arch);
		for (int i = 0; i < MNTSNAP_SC_NSYS; i++) {
			const struct mntsnap_sc_sys *s = &mntsnap_sc_table[i];

			if (in_set(s, set) && s->nr[a] >= 0)
				fprintf(o, "#define MNTSNAP_SC_NR_%s_%s %d\n", an, s->name, s->nr[a]);
		}
		fputc('\n', o);
	}
	fputs("#endif\n", o);
}

/* ---- --merge (json-c) ----------------------------------------------------- */
#if MNTSNAP_HAVE_JSON

static const char *const sc_actions[] = {
	"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
	"SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY",
	NULL,
};

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* Keys of a profile / an entry: common, and those only Docker/Podman use. */
static const char *const top_keys[] = { "defaultAction", "defaultErrnoRet", "architectures",
					"flags", "listenerPath", "listenerMetadata", "syscalls",
					NULL };
static const char *const top_docker_keys[] = { "archMap", "defaultErrno", NULL };
static const char *const ent_keys[] = { "names", "action", "errnoRet", "args", NULL };
static const char *const ent_docker_keys[] = { "name", "comment", "includes", "excludes",
					       "errno", NULL };

struct merge_ctx {
	json_object *syscalls;
	const char *path;
	bool docker;
	bool default_enosys;
};

static int bad(const char *path, const char *what, const char *detail)
{
	cli_fail(0, "seccomp --merge %s: %s%s%s", path, what, detail ? ": " : "",
		 detail ? detail : "");
	return -EINVAL;
}

static bool is_action(json_object *v)
{
	return json_object_is_type(v, json_type_string) &&
	       in_list(json_object_get_string(v), sc_actions);
}

static bool string_array(json_object *v)
{
	if (!json_object_is_type(v, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(v); i++)
		if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
			return false;
	return true;
}

/* Docker includes/excludes: {caps: [..], arches: [..], minKernel: "x.y"} */
static int check_filter(json_object *e, const char *key, const char *path)
{
	json_object *f;

	if (!json_object_object_get_ex(e, key, &f) || json_object_is_type(f, json_type_null))
		return 0;
	if (!json_object_is_type(f, json_type_object))
		return bad(path, "includes/excludes must be objects", key);
	json_object_object_foreach(f, k, v) {
		if (!strcmp(k, "caps") || !strcmp(k, "arches")) {
			if (!json_object_is_type(v, json_type_null) && !string_array(v))
				return bad(path, "includes/excludes: must be an array of strings", k);
		} else if (!strcmp(k, "minKernel")) {
			if (!json_object_is_type(v, json_type_string))
				return bad(path, "minKernel must be a string like \"6.8\"", NULL);
		} else {
			return bad(path, "unknown key in includes/excludes", k);
		}
	}
	return 0;
}

static int check_entry(json_object *e, const char *path, bool *docker)
{
	json_object *names, *v;

	if (!json_object_is_type(e, json_type_object))
		return bad(path, "a syscalls[] entry is not an object", NULL);
	json_object_object_foreach(e, key, val) {
		(void)val;
		if (in_list(key, ent_docker_keys))
			*docker = true;
		else if (!in_list(key, ent_keys))
			return bad(path, "unknown key in a syscalls[] entry (neither OCI nor "
					 "Docker format)", key);
	}
	if (!json_object_object_get_ex(e, "action", &v) || !is_action(v))
		return bad(path, "syscalls[] entry without a valid \"action\"", NULL);
	if (json_object_object_get_ex(e, "names", &names)) {
		size_t n;

		if (!json_object_is_type(names, json_type_array) ||
		    !(n = json_object_array_length(names)))
			return bad(path, "\"names\" must be a non-empty array", NULL);
		for (size_t i = 0; i < n; i++)
			if (!json_object_is_type(json_object_array_get_idx(names, i),
						 json_type_string))
				return bad(path, "\"names\" must hold strings", NULL);
	} else if (!json_object_object_get_ex(e, "name", &v) ||
		   !json_object_is_type(v, json_type_string)) {
		return bad(path, "syscalls[] entry without \"names\"", NULL);
	}
	if (json_object_object_get_ex(e, "errnoRet", &v) && !json_object_is_type(v, json_type_int))
		return bad(path, "\"errnoRet\" must be a number", NULL);
	if (json_object_object_get_ex(e, "args", &v) && !json_object_is_type(v, json_type_null) &&
	    !json_object_is_type(v, json_type_array))
		return bad(path, "\"args\" must be an array", NULL);
	if (json_object_object_get_ex(e, "comment", &v) && !json_object_is_type(v, json_type_string))
		return bad(path, "\"comment\" must be a string", NULL);
	return check_filter(e, "includes", path) ?: check_filter(e, "excludes", path);
}

/* Validate the profile object; say whether it uses Docker-only keys. */
static int check_profile(json_object *p, const char *path, bool *docker)
{
	json_object *v;

	if (!json_object_is_type(p, json_type_object))
		return bad(path, "not a seccomp profile (top level is not an object)", NULL);
	json_object_object_foreach(p, key, val) {
		(void)val;
		if (in_list(key, top_docker_keys))
			*docker = true;
		else if (!in_list(key, top_keys))
			return bad(path, "unknown top-level key (neither an OCI nor a Docker "
					 "seccomp profile)", key);
	}
	if (!json_object_object_get_ex(p, "defaultAction", &v) || !is_action(v))
		return bad(path, "no valid \"defaultAction\"", NULL);
	if (json_object_object_get_ex(p, "archMap", &v)) {
		if (!json_object_is_type(v, json_type_array))
			return bad(path, "\"archMap\" is not an array", NULL);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *m = json_object_array_get_idx(v, i), *a;

			if (!json_object_is_type(m, json_type_object) ||
			    !json_object_object_get_ex(m, "architecture", &a) ||
			    !json_object_is_type(a, json_type_string))
				return bad(path, "archMap entry without \"architecture\"", NULL);
		}
	}
	if (json_object_object_get_ex(p, "defaultErrnoRet", &v) && !json_object_is_type(v, json_type_int))
		return bad(path, "\"defaultErrnoRet\" must be a number", NULL);
	if (json_object_object_get_ex(p, "syscalls", &v)) {
		if (!json_object_is_type(v, json_type_array))
			return bad(path, "\"syscalls\" is not an array", NULL);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			int r = check_entry(json_object_array_get_idx(v, i), path, docker);

			if (r)
				return r;
		}
	}
	return 0;
}

/* includes/excludes absent, or with no field set */
static bool filter_empty(json_object *e, const char *key)
{
	json_object *f;

	if (!json_object_object_get_ex(e, key, &f) || json_object_is_type(f, json_type_null))
		return true;
	json_object_object_foreach(f, k, v) {
		(void)k;
		if (json_object_is_type(v, json_type_null) ||
		    (json_object_is_type(v, json_type_array) && !json_object_array_length(v)))
			continue;
		if (json_object_is_type(v, json_type_string) && !*json_object_get_string(v))
			continue;
		return false;
	}
	return true;
}

static bool entry_unconditional(json_object *e)
{
	json_object *args;

	if (json_object_object_get_ex(e, "args", &args) &&
	    json_object_is_type(args, json_type_array) && json_object_array_length(args))
		return false;
	return filter_empty(e, "includes") && filter_empty(e, "excludes");
}

static bool entry_has_name(json_object *e, const char *name)
{
	json_object *names, *v;

	if (json_object_object_get_ex(e, "name", &v) && !strcmp(json_object_get_string(v), name))
		return true;
	if (!json_object_object_get_ex(e, "names", &names))
		return false;
	for (size_t i = 0; i < json_object_array_length(names); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(names, i)), name))
			return true;
	return false;
}

static bool entry_is_ours(json_object *e)
{
	json_object *c;

	return json_object_object_get_ex(e, "comment", &c) &&
	       json_object_is_type(c, json_type_string) &&
	       !strncmp(json_object_get_string(c), SC_TAG, strlen(SC_TAG));
}

/*
 * A name an unconditional rule of the profile already decides is left
 * alone: an ALLOW means nothing to add, and adding a different action
 * for the same syscall would make the runtime's libseccomp fail (-EEXIST).
 */
static bool merge_skip(const char *name, void *data)
{
	struct merge_ctx *m = data;
	size_t n = json_object_array_length(m->syscalls);

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(m->syscalls, i), *v;
		const char *act;

		if (!entry_has_name(e, name) || !entry_unconditional(e))
			continue;
		json_object_object_get_ex(e, "action", &v);
		act = json_object_get_string(v);
		if (strcmp(act, "SCMP_ACT_ALLOW") &&
		    !(!strcmp(act, "SCMP_ACT_ERRNO") && json_object_object_get_ex(e, "errnoRet", &v) &&
		      json_object_get_int(v) == SC_ENOSYS))
			fprintf(stderr, "mntsnap: seccomp --merge %s: profile already answers %s with "
					"%s; left as is\n", m->path, name, act);
		return true;
	}
	return false;
}

static json_object *filter_obj(const struct sc_entry *e)
{
	json_object *f = json_object_new_object();

	if (e->cap) {
		json_object *caps = json_object_new_array();

		json_object_array_add(caps, json_object_new_string(e->cap));
		json_object_object_add(f, "caps", caps);
	}
	if (e->min_kernel)
		json_object_object_add(f, "minKernel", json_object_new_string(e->min_kernel));
	return f;
}

static json_object *entry_obj(const struct sc_entry *e)
{
	json_object *o = json_object_new_object(), *names = json_object_new_array();

	if (e->comment[0])
		json_object_object_add(o, "comment", json_object_new_string(e->comment));
	for (int i = 0; i < e->n; i++)
		json_object_array_add(names, json_object_new_string(e->names[i]));
	json_object_object_add(o, "names", names);
	json_object_object_add(o, "action",
			       json_object_new_string(e->enosys ? "SCMP_ACT_ERRNO" : "SCMP_ACT_ALLOW"));
	if (e->enosys)
		json_object_object_add(o, "errnoRet", json_object_new_int(SC_ENOSYS));
	if (e->has_inc)
		json_object_object_add(o, "includes", filter_obj(e));
	if (e->has_exc)
		json_object_object_add(o, "excludes", filter_obj(e));
	return o;
}

/* Docker: drop what an earlier merge added, so merging again is a no-op. */
static void drop_ours(json_object *sys)
{
	for (size_t i = json_object_array_length(sys); i-- > 0;)
		if (entry_is_ours(json_object_array_get_idx(sys, i)))
			json_object_array_del_idx(sys, i, 1);
}

/* The seccomp object inside an OCI config.json, or the profile itself. */
static int find_profile(json_object *root, const char *path, json_object **ret, bool *is_config)
{
	json_object *linux_obj, *sc;

	*is_config = json_object_is_type(root, json_type_object) &&
		     (json_object_object_get_ex(root, "ociVersion", NULL) ||
		      json_object_object_get_ex(root, "linux", NULL));
	if (!*is_config) {
		*ret = root;
		return 0;
	}
	if (!json_object_object_get_ex(root, "linux", &linux_obj) ||
	    !json_object_object_get_ex(linux_obj, "seccomp", &sc))
		return bad(path, "OCI config without linux.seccomp", NULL);
	*ret = sc;
	return 0;
}

static int merge_profile(json_object *p, struct sc_args *a, bool docker)
{
	struct merge_ctx m = { .path = a->merge, .docker = docker };
	json_object *v;
	struct sc_frag f;

	if (!json_object_object_get_ex(p, "syscalls", &m.syscalls)) {
		m.syscalls = json_object_new_array();
		json_object_object_add(p, "syscalls", m.syscalls);
	}
	json_object_object_get_ex(p, "defaultAction", &v);
	/* Rules equal to the default are dropped by runtimes (and libseccomp
	 * refuses them): an ALLOW default needs nothing, an ENOSYS default
	 * makes the ENOSYS entries moot. */
	if (!strcmp(json_object_get_string(v), "SCMP_ACT_ALLOW"))
		return 0;
	if (!strcmp(json_object_get_string(v), "SCMP_ACT_ERRNO") &&
	    json_object_object_get_ex(p, "defaultErrnoRet", &v) && json_object_get_int(v) == SC_ENOSYS)
		a->enosys = false;
	if (docker)
		drop_ours(m.syscalls);
	a->format = docker ? SC_DOCKER : SC_OCI;
	build(&f, a, merge_skip, &m);
	for (int i = 0; i < f.n; i++)
		json_object_array_add(m.syscalls, entry_obj(&f.e[i]));
	return 0;
}

/* ---- Docker profile -> OCI, the way dockerd resolves it ------------------ */

/* Docker's default bounding set (moby oci/caps/defaults.go). */
static const char docker_default_caps[] =
	"CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FSETID,CAP_FOWNER,CAP_MKNOD,CAP_NET_RAW,CAP_SETGID,"
	"CAP_SETUID,CAP_SETFCAP,CAP_SETPCAP,CAP_NET_BIND_SERVICE,CAP_SYS_CHROOT,CAP_KILL,"
	"CAP_AUDIT_WRITE";

struct host {
	const char *scmp_arch;	/* e.g. SCMP_ARCH_X86_64 */
	const char *go_arch;	/* moby's arch names in includes/excludes: amd64 */
	int kmaj, kmin;
	const char *caps;
};

static const struct {
	const char *machine, *scmp, *go;
} host_arches[] = {
	{ "x86_64", "SCMP_ARCH_X86_64", "amd64" },
	{ "aarch64", "SCMP_ARCH_AARCH64", "arm64" },
	{ "ppc64le", "SCMP_ARCH_PPC64LE", "ppc64le" },
	{ "s390x", "SCMP_ARCH_S390X", "s390x" },
	{ "riscv64", "SCMP_ARCH_RISCV64", "riscv64" },
	{ "loongarch64", "SCMP_ARCH_LOONGARCH64", "loong64" },
	{ "mips64", "SCMP_ARCH_MIPS64", "mips64" },
	{ "armv7l", "SCMP_ARCH_ARM", "arm" },
	{ "i686", "SCMP_ARCH_X86", "386" },
};

static int host_get(struct host *h, const char *caps)
{
	struct utsname u;

	if (uname(&u))
		return -errno;
	h->scmp_arch = h->go_arch = NULL;
	for (size_t i = 0; i < sizeof(host_arches) / sizeof(host_arches[0]); i++)
		if (!strcmp(u.machine, host_arches[i].machine)) {
			h->scmp_arch = host_arches[i].scmp;
			h->go_arch = host_arches[i].go;
		}
	if (!h->scmp_arch)
		return -EOPNOTSUPP;
	if (sscanf(u.release, "%d.%d", &h->kmaj, &h->kmin) != 2)
		return -EINVAL;
	h->caps = caps ? caps : docker_default_caps;
	return 0;
}

/* Is cap in the comma-separated list (CAP_ prefix optional on either)? */
static bool cap_in(const char *list, const char *cap)
{
	size_t n;

	if (!strncmp(cap, "CAP_", 4))
		cap += 4;
	n = strlen(cap);
	while (*list) {
		const char *end = strchr(list, ','), *c = list;
		size_t len = end ? (size_t)(end - list) : strlen(list);

		if (!strncmp(c, "CAP_", 4)) {
			c += 4;
			len -= 4;
		}
		if (len == n && !strncasecmp(c, cap, n))
			return true;
		if (!end)
			break;
		list = end + 1;
	}
	return false;
}

static bool str_in_array(json_object *arr, const char *s)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s))
			return true;
	return false;
}

static bool kernel_ge(const struct host *h, const char *min)
{
	int maj, mn;

	if (sscanf(min, "%d.%d", &maj, &mn) != 2)
		return false;
	return h->kmaj > maj || (h->kmaj == maj && h->kmin >= mn);
}

/* moby setupSeccomp: does this entry apply to this host? */
static bool entry_applies(json_object *e, const struct host *h)
{
	json_object *f, *v;

	if (json_object_object_get_ex(e, "excludes", &f) && json_object_is_type(f, json_type_object)) {
		if (json_object_object_get_ex(f, "arches", &v) && str_in_array(v, h->go_arch))
			return false;
		if (json_object_object_get_ex(f, "caps", &v) && v)
			for (size_t i = 0; i < json_object_array_length(v); i++)
				if (cap_in(h->caps, json_object_get_string(json_object_array_get_idx(v, i))))
					return false;
		if (json_object_object_get_ex(f, "minKernel", &v) &&
		    kernel_ge(h, json_object_get_string(v)))
			return false;
	}
	if (json_object_object_get_ex(e, "includes", &f) && json_object_is_type(f, json_type_object)) {
		if (json_object_object_get_ex(f, "arches", &v) && v && json_object_array_length(v) &&
		    !str_in_array(v, h->go_arch))
			return false;
		if (json_object_object_get_ex(f, "caps", &v) && v)
			for (size_t i = 0; i < json_object_array_length(v); i++)
				if (!cap_in(h->caps, json_object_get_string(json_object_array_get_idx(v, i))))
					return false;
		if (json_object_object_get_ex(f, "minKernel", &v) &&
		    !kernel_ge(h, json_object_get_string(v)))
			return false;
	}
	return true;
}

static json_object *oci_entry(json_object *e)
{
	static const char *const keep[] = { "names", "action", "errnoRet", "args" };
	json_object *o = json_object_new_object(), *v;

	if (json_object_object_get_ex(e, "name", &v)) {
		json_object *names = json_object_new_array();

		json_object_array_add(names, json_object_get(v));
		json_object_object_add(o, "names", names);
	}
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (json_object_object_get_ex(e, keep[i], &v))
			json_object_object_add(o, keep[i], json_object_get(v));
	return o;
}

/* archMap -> architectures (native + subArchitectures), if the host is listed */
static void oci_arches(json_object *p, const struct host *h)
{
	json_object *map, *arches;

	if (!json_object_object_get_ex(p, "archMap", &map))
		return;
	arches = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(map); i++) {
		json_object *m = json_object_array_get_idx(map, i), *v, *sub;

		if (!json_object_object_get_ex(m, "architecture", &v) ||
		    strcmp(json_object_get_string(v), h->scmp_arch))
			continue;
		json_object_array_add(arches, json_object_get(v));
		if (json_object_object_get_ex(m, "subArchitectures", &sub) &&
		    json_object_is_type(sub, json_type_array))
			for (size_t j = 0; j < json_object_array_length(sub); j++)
				json_object_array_add(arches,
						      json_object_get(json_object_array_get_idx(sub, j)));
	}
	json_object_object_del(p, "archMap");
	json_object_object_add(p, "architectures", arches);
}

static int docker_to_oci(json_object *p, const struct sc_args *a)
{
	json_object *sys, *out;
	struct host h;
	int r = host_get(&h, a->caps);

	if (r)
		return cli_fail(r, "seccomp: cannot resolve the Docker profile for this host"), r;
	oci_arches(p, &h);
	json_object_object_del(p, "defaultErrno");	/* Podman's errno name */
	if (!json_object_object_get_ex(p, "syscalls", &sys))
		return 0;
	out = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(sys); i++) {
		json_object *e = json_object_array_get_idx(sys, i);

		if (entry_applies(e, &h))
			json_object_array_add(out, oci_entry(e));
	}
	json_object_object_add(p, "syscalls", out);
	return 0;
}

/* Whole file, NUL-terminated; profiles are small, cap at 16 MiB. */
static int read_text(const char *path, char **ret)
{
	FILE *f = fopen(path, "re");
	size_t cap = 65536, n = 0;
	char *buf = NULL, *nb;
	int r = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (!(nb = realloc(buf, cap + 1))) {
			r = -ENOMEM;
			break;
		}
		buf = nb;
		n += fread(buf + n, 1, cap - n, f);
		if (ferror(f)) {
			r = -EIO;
			break;
		}
		if (n < cap)
			break;
		if (cap >= 16u << 20) {
			r = -EFBIG;
			break;
		}
		cap *= 2;
	}
	fclose(f);
	if (r) {
		free(buf);
		return r;
	}
	buf[n] = '\0';
	if (strlen(buf) != n) {
		free(buf);
		return -EINVAL; /* NUL byte: not JSON text */
	}
	*ret = buf;
	return 0;
}

static int run_merge(struct sc_args *a)
{
	json_object *root, *p;
	enum json_tokener_error jerr;
	bool docker = false, is_config;
	char *text = NULL;
	int r;

	r = read_text(a->merge, &text);
	if (r < 0)
		return cli_fail(r, "seccomp --merge: cannot read %s", a->merge);
	root = json_tokener_parse_verbose(text, &jerr);
	free(text);
	if (!root)
		return bad(a->merge, "not valid JSON", json_tokener_error_desc(jerr)), CLI_EXIT_ERR;
	r = find_profile(root, a->merge, &p, &is_config);
	if (!r)
		r = check_profile(p, a->merge, &docker);
	if (!r && docker && is_config)
		r = bad(a->merge, "Docker-only keys (archMap, includes, comment, ...) in an OCI "
				  "config", NULL);
	if (!r) {
		bool to_oci = docker && a->format == SC_OCI;

		r = merge_profile(p, a, docker || a->format == SC_DOCKER);
		if (!r && to_oci)
			r = docker_to_oci(p, a);
	}
	if (!r)
		printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
									   JSON_C_TO_STRING_SPACED |
									   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return r ? CLI_EXIT_ERR : 0;
}
#endif /* MNTSNAP_HAVE_JSON */

/* ---- options ---------------------------------------------------------------- */

static int parse_arch(const char *s)
{
	for (int a = 0; a < MNTSNAP_SC_NARCH; a++)
		if (!strcmp(s, mntsnap_sc_arches[a].name) ||
		    (mntsnap_sc_arches[a].scmp_name && !strcmp(s, mntsnap_sc_arches[a].scmp_name)))
			return a;
	return -1;
}

static int parse_format(const char *s)
{
	static const char *const names[] = { "oci", "docker", "systemd", "c" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int parse_seccomp(int argc, char **argv, struct sc_args *a, bool *format_given)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(seccomp_help, stdout);
			return 1;
		}
		if (!strcmp(o, "--errno-enosys")) {
			a->enosys = true;
			continue;
		}
		if (i + 1 >= argc)
			return cli_fail(0, "seccomp: unknown option or missing value: '%s'", o), -EINVAL;
		if (!strcmp(o, "--format")) {
			a->format = parse_format(argv[++i]);
			*format_given = true;
			if (a->format < 0)
				return cli_fail(0, "seccomp: unknown format '%s'", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--set")) {
			i++;
			if (!strcmp(argv[i], "query"))
				a->set = SC_QUERY;
			else if (!strcmp(argv[i], "full"))
				a->set = SC_FULL;
			else
				return cli_fail(0, "seccomp: unknown set '%s' (query|full)", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--arch")) {
			a->arch = parse_arch(argv[++i]);
			if (a->arch < 0)
				return cli_fail(0, "seccomp: unknown arch '%s'", argv[i]), -EINVAL;
		} else if (!strcmp(o, "--merge")) {
			a->merge = argv[++i];
		} else if (!strcmp(o, "--caps")) {
			a->caps = argv[++i];
		} else {
			return cli_fail(0, "seccomp: unknown option '%s'", o), -EINVAL;
		}
	}
	return 0;
}

static int check_combination(const struct sc_args *a, bool format_given)
{
	if (a->arch >= 0 && a->format != SC_C)
		return cli_fail(0, "seccomp: --arch applies to --format c only (JSON and systemd "
				   "fragments name syscalls, not numbers)"), -EINVAL;
	if (a->caps && !a->merge)
		return cli_fail(0, "seccomp: --caps applies to --merge only"), -EINVAL;
	if (a->merge && format_given && a->format != SC_OCI && a->format != SC_DOCKER)
		return cli_fail(0, "seccomp: --merge writes JSON: --format oci or docker"), -EINVAL;
	if (a->enosys && a->format == SC_SYSTEMD)
		return cli_fail(0, "seccomp: --errno-enosys: systemd >= 255 already answers ENOSYS "
				   "for syscalls outside an allow-list; nothing to add"), -EINVAL;
	if (a->enosys && a->format == SC_C)
		return cli_fail(0, "seccomp: --errno-enosys makes no sense with --format c"), -EINVAL;
#if !MNTSNAP_HAVE_JSON
	if (a->merge)
		return cli_fail(0, "seccomp: --merge is not available: built without json-c"), -ENOTSUP;
#endif
	return 0;
}

int cmd_seccomp(int argc, char **argv)
{
	struct sc_args a = { .format = SC_OCI, .set = SC_QUERY, .arch = -1 };
	bool format_given = false;
	struct sc_frag f;
	int r;

	if (seccomp_notify_wanted(argc, argv))
		return cmd_seccomp_notify(argc, argv);
	r = parse_seccomp(argc, argv, &a, &format_given);

	if (r)
		return r > 0 ? 0 : CLI_EXIT_ERR;
	if (check_combination(&a, format_given))
		return CLI_EXIT_ERR;
#if MNTSNAP_HAVE_JSON
	if (a.merge) {
		if (!format_given)
			a.format = SC_AUTO;
		return run_merge(&a);
	}
#endif
	switch (a.format) {
	case SC_SYSTEMD:
		print_systemd(stdout, a.set);
		break;
	case SC_C:
		print_c(stdout, a.set, a.arch);
		break;
	default:
		build(&f, &a, no_skip, NULL);
		print_frag(stdout, &f);
	}
	return fflush(stdout) ? cli_fail(errno, "seccomp: write") : 0;
}
