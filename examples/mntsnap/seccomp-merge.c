// SPDX-License-Identifier: MIT
/*
 * mntsnap seccomp --merge: validate a seccomp profile (OCI, Docker/moby,
 * containers/common, or an OCI config.json), add mntsnap's fragment without
 * widening what the container may do, and optionally resolve a Docker
 * profile to OCI the way dockerd does.
 *
 * The rules, in the order they are applied:
 *
 * - Nothing json-c and Go's encoding/json would read differently passes:
 *   a key twice in an object, an escape in a key, \u0000 in a string, -0.
 * - Validation rejects what dockerd's loader rejects (name with names,
 *   architectures with archMap, a minKernel that is not "<u8>.<u8>" or is
 *   "0.0", wrong types) and more: unknown keys and action/op/arch/flag
 *   names, numbers out of range, trailing data, and null anywhere but in
 *   the three arrays Go's encoding/json writes as null when empty
 *   ("syscalls", "subArchitectures", "args": moby's default.json and
 *   containers/common's seccomp.json have them). Every error names the
 *   JSON path of what is wrong.
 * - Entries mntsnap added earlier are recognised by content (comment,
 *   action, gate and names all exactly as a fragment has them), never by
 *   a comment prefix a user could share; they are replaced, so merging
 *   twice equals merging once. A denial an older version wrote goes only
 *   where that allows nothing more.
 * - A syscall any rule of the profile names (allow or deny, gated or not)
 *   is left to the profile: adding a second rule would make the outcome
 *   depend on rule order inside libseccomp.
 * - Gates go only where the reader evaluates them: Docker-format output
 *   for an OCI config, or gated entries (--set full) for a plain OCI
 *   profile, are refused; OCI output gets the full set only for a stated
 *   bounding set with CAP_SYS_ADMIN.
 * - --errno-enosys turns the errno of the profile's ERRNO rules about
 *   statmount/listmount (and of no other rule) into ENOSYS.
 * - Docker -> OCI keeps every gate: includes/excludes are evaluated for
 *   the stated capabilities, this kernel and this arch (dockerd's
 *   setupSeccomp), never dropped; the OCI fragment is then merged into
 *   the result as into any OCI profile.
 *
 * json-c keeps the key order of the input, so everything not touched is
 * printed back as it was read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <json-c/json.h>

#include "seccomp-merge.h"
#include "seccomp-splice.h"

#define PATH_MAX_LEN 192

struct mctx {
	char *err;
	bool docker;	/* Docker-only keys seen (archMap, name, comment, includes, excludes) */
	bool podman;	/* containers/common-only keys seen (defaultErrno, errno) */
	bool overflow;	/* the text holds an integer beyond 64 bits */
};

static int fail(struct mctx *m, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct mctx *m, const char *path, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	if (m->err)
		return -EINVAL;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg || asprintf(&m->err, "%s: %s", path, msg) < 0)
		m->err = NULL;
	free(msg);
	return m->err ? -EINVAL : -ENOMEM;
}

/* Paths only grow by keys the validator knows; a cut path still locates. */
static void path_key(char *dst, const char *path, const char *key)
{
	if (snprintf(dst, PATH_MAX_LEN, "%s.%s", path, key) >= PATH_MAX_LEN)
		dst[PATH_MAX_LEN - 1] = '\0';
}

static void path_idx(char *dst, const char *path, size_t i)
{
	if (snprintf(dst, PATH_MAX_LEN, "%s[%zu]", path, i) >= PATH_MAX_LEN)
		dst[PATH_MAX_LEN - 1] = '\0';
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool has(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

/* ---- vocabulary (runtime-spec v1.3.0 schema, defs-linux.json) --------------------- */

static const char *const actions[] = {
	"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
	"SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY",
	NULL,
};

static const char *const ops[] = {
	"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT",
	"SCMP_CMP_MASKED_EQ", NULL,
};

static const char *const arches[] = {
	"SCMP_ARCH_X86", "SCMP_ARCH_X86_64", "SCMP_ARCH_X32", "SCMP_ARCH_ARM", "SCMP_ARCH_AARCH64",
	"SCMP_ARCH_MIPS", "SCMP_ARCH_MIPS64", "SCMP_ARCH_MIPS64N32", "SCMP_ARCH_MIPSEL",
	"SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC", "SCMP_ARCH_PPC64",
	"SCMP_ARCH_PPC64LE", "SCMP_ARCH_S390", "SCMP_ARCH_S390X", "SCMP_ARCH_PARISC",
	"SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64", "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",
	"SCMP_ARCH_SH", "SCMP_ARCH_SHEB", NULL,
};

static const char *const flags[] = {
	"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
	"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL,
};

/* Keys: OCI, then those only Docker (moby) and containers/common know. */
static const char *const top_keys[] = { "defaultAction", "defaultErrnoRet", "architectures",
					"flags", "listenerPath", "listenerMetadata", "syscalls",
					NULL };
static const char *const ent_keys[] = { "names", "action", "errnoRet", "args", NULL };
static const char *const arg_keys[] = { "index", "value", "valueTwo", "op", NULL };

/* errno names containers/common may give without a number */
static const struct {
	const char *name;
	int nr;
} errnos[] = {
	{ "EPERM", 1 }, { "ENOENT", 2 }, { "EIO", 5 }, { "EACCES", 13 }, { "EINVAL", 22 },
	{ "ENOSYS", 38 }, { "EOPNOTSUPP", 95 }, { "ENOTSUP", 95 },
};

static int errno_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(name, errnos[i].name))
			return errnos[i].nr;
	return -1;
}

/* ---- validation ------------------------------------------------------------------- */

static const char *type_name(json_object *v)
{
	return v ? json_type_to_name(json_object_get_type(v)) : "null";
}

static int v_string(struct mctx *m, const char *path, json_object *v, bool nonempty)
{
	if (!json_object_is_type(v, json_type_string))
		return fail(m, path, "must be a string, not %s", type_name(v));
	if (nonempty && !json_object_get_string_len(v))
		return fail(m, path, "must not be empty");
	/* C (runc via libseccomp, crun, this merger) stops at NUL, Go does not */
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return fail(m, path, "a NUL character (\\u0000): C and Go read different "
				     "strings");
	return 0;
}

static int v_uint(struct mctx *m, const char *path, json_object *v, uint64_t max, uint64_t *ret)
{
	uint64_t u;

	if (!json_object_is_type(v, json_type_int))
		return fail(m, path, "must be an unsigned integer, not %s", type_name(v));
	/* what json-c makes of a literal beyond 64 bits (see overflowing_integer) */
	if (m->overflow && (json_object_get_int64(v) == INT64_MIN ||
			    json_object_get_uint64(v) == UINT64_MAX))
		return fail(m, path, "an integer beyond 64 bits");
	if (json_object_get_int64(v) < 0)
		return fail(m, path, "must not be negative");
	u = json_object_get_uint64(v);
	if (u > max)
		return fail(m, path, "%llu is out of range (at most %llu)", (unsigned long long)u,
			    (unsigned long long)max);
	if (ret)
		*ret = u;
	return 0;
}

static int v_enum(struct mctx *m, const char *path, json_object *v, const char *const *list,
		  const char *what)
{
	int r = v_string(m, path, v, true);

	if (!r && !in_list(json_object_get_string(v), list))
		r = fail(m, path, "unknown %s \"%s\"", what, json_object_get_string(v));
	return r;
}

/* An array of strings (from list, when given); nonempty: at least one. */
static int v_strings(struct mctx *m, const char *path, json_object *v, const char *const *list,
		     const char *what, bool nonempty)
{
	char p[PATH_MAX_LEN];
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return fail(m, path, "must be an array of strings, not %s", type_name(v));
	n = json_object_array_length(v);
	if (nonempty && !n)
		return fail(m, path, "must not be empty");
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(v, i);
		int r;

		path_idx(p, path, i);
		r = list ? v_enum(m, p, s, list, what) : v_string(m, p, s, true);
		if (r)
			return r;
	}
	return 0;
}

/* Every key of object o is in one of the lists; Docker/Podman keys set the flags. */
static int v_keys(struct mctx *m, const char *path, json_object *o, const char *const *keys,
		  const char *const *docker_keys, const char *const *podman_keys)
{
	json_object_object_foreach(o, k, val) {
		(void)val;
		if (in_list(k, keys))
			continue;
		if (docker_keys && in_list(k, docker_keys))
			m->docker = true;
		else if (podman_keys && in_list(k, podman_keys))
			m->podman = true;
		else
			return fail(m, path, "unknown key \"%s\"", k);
	}
	return 0;
}

/*
 * minKernel as moby's KernelVersion.UnmarshalJSON takes it: "" (no gate)
 * or exactly "<kernel>.<major>", each a decimal 0..255, not both 0.
 */
static int parse_kernel(const char *s, int *kmaj, int *kmin)
{
	int part[2] = { 0, 0 };
	int np = 0, digits = 0;

	if (!*s) {
		*kmaj = *kmin = 0;
		return 0;
	}
	for (; ; s++) {
		if (*s >= '0' && *s <= '9') {
			part[np] = part[np] * 10 + (*s - '0');
			if (++digits > 3 || part[np] > 255)
				return -EINVAL;
		} else if ((*s == '.' || !*s) && digits) {
			np++;
			digits = 0;
			if (!*s)
				break;
			if (np > 1)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (np != 2 || (!part[0] && !part[1]))
		return -EINVAL;
	*kmaj = part[0];
	*kmin = part[1];
	return 0;
}

static int v_filter(struct mctx *m, const char *path, json_object *f)
{
	static const char *const keys[] = { "caps", "arches", "minKernel", NULL };
	char p[PATH_MAX_LEN];
	int r, a, b;

	if (!json_object_is_type(f, json_type_object))
		return fail(m, path, "must be an object, not %s", type_name(f));
	if ((r = v_keys(m, path, f, keys, NULL, NULL)))
		return r;
	json_object_object_foreach(f, k, v) {
		path_key(p, path, k);
		if (strcmp(k, "minKernel")) {
			if ((r = v_strings(m, p, v, NULL, NULL, false)))
				return r;
		} else if ((r = v_string(m, p, v, false))) {
			return r;
		} else if (parse_kernel(json_object_get_string(v), &a, &b)) {
			return fail(m, p, "\"%s\" is not a kernel version \"<kernel>.<major>\" "
					  "(each 0..255, not 0.0)", json_object_get_string(v));
		}
	}
	return 0;
}

static int v_arg(struct mctx *m, const char *path, json_object *a)
{
	static const char *const required[] = { "index", "value", "op" };
	char p[PATH_MAX_LEN];
	int r;

	if (!json_object_is_type(a, json_type_object))
		return fail(m, path, "must be an object, not %s", type_name(a));
	if ((r = v_keys(m, path, a, arg_keys, NULL, NULL)))
		return r;
	for (size_t i = 0; i < 3; i++)
		if (!has(a, required[i]))
			return fail(m, path, "no \"%s\"", required[i]);
	json_object_object_foreach(a, k, v) {
		path_key(p, path, k);
		if (!strcmp(k, "op"))
			r = v_enum(m, p, v, ops, "operator");
		else	/* seccomp compares 6 register arguments */
			r = v_uint(m, p, v, !strcmp(k, "index") ? 5 : UINT64_MAX, NULL);
		if (r)
			return r;
	}
	return 0;
}

static bool takes_errno(const char *action)
{
	return !strcmp(action, "SCMP_ACT_ERRNO") || !strcmp(action, "SCMP_ACT_TRACE");
}

static int v_entry(struct mctx *m, const char *path, json_object *e)
{
	static const char *const docker_keys[] = { "name", "comment", "includes", "excludes",
						   NULL };
	static const char *const podman_keys[] = { "errno", NULL };
	char p[PATH_MAX_LEN];
	json_object *v;
	int r;

	if (!json_object_is_type(e, json_type_object))
		return fail(m, path, "must be an object, not %s", type_name(e));
	if ((r = v_keys(m, path, e, ent_keys, docker_keys, podman_keys)))
		return r;
	if (has(e, "name") && has(e, "names"))
		return fail(m, path, "both \"name\" and \"names\": use either");
	if (!has(e, "name") && !has(e, "names"))
		return fail(m, path, "no \"names\"");
	if (!has(e, "action"))
		return fail(m, path, "no \"action\"");
	json_object_object_foreach(e, k, val) {
		path_key(p, path, k);
		if (!strcmp(k, "name")) {
			r = v_string(m, p, val, true);
		} else if (!strcmp(k, "names")) {
			r = v_strings(m, p, val, NULL, NULL, true);
		} else if (!strcmp(k, "action")) {
			r = v_enum(m, p, val, actions, "action");
		} else if (!strcmp(k, "errnoRet")) {
			r = v_uint(m, p, val, UINT32_MAX, NULL);
		} else if (!strcmp(k, "errno")) {
			r = v_string(m, p, val, true);
		} else if (!strcmp(k, "comment")) {
			r = v_string(m, p, val, false);
		} else if (!strcmp(k, "includes") || !strcmp(k, "excludes")) {
			r = v_filter(m, p, val);
		} else if (!strcmp(k, "args") && val) {
			if (!json_object_is_type(val, json_type_array))
				return fail(m, p, "must be an array or null, not %s", type_name(val));
			for (size_t i = 0; !r && i < json_object_array_length(val); i++) {
				char pi[PATH_MAX_LEN];

				path_idx(pi, p, i);
				r = v_arg(m, pi, json_object_array_get_idx(val, i));
			}
		}
		if (r)
			return r;
	}
	v = get(e, "action");
	if ((has(e, "errnoRet") || has(e, "errno")) && !takes_errno(json_object_get_string(v)))
		return fail(m, path, "an errno on action %s, which takes none (runtimes must fail)",
			    json_object_get_string(v));
	if (has(e, "errno") && !has(e, "errnoRet") &&
	    errno_by_name(json_object_get_string(get(e, "errno"))) < 0)
		return fail(m, path, "errno \"%s\" without errnoRet: unknown name",
			    json_object_get_string(get(e, "errno")));
	return 0;
}

static int v_archmap(struct mctx *m, const char *path, json_object *map)
{
	static const char *const keys[] = { "architecture", "subArchitectures", NULL };
	char p[PATH_MAX_LEN], q[PATH_MAX_LEN];
	int r;

	if (!json_object_is_type(map, json_type_array))
		return fail(m, path, "must be an array, not %s", type_name(map));
	for (size_t i = 0; i < json_object_array_length(map); i++) {
		json_object *a = json_object_array_get_idx(map, i);

		path_idx(p, path, i);
		if (!json_object_is_type(a, json_type_object))
			return fail(m, p, "must be an object, not %s", type_name(a));
		if ((r = v_keys(m, p, a, keys, NULL, NULL)))
			return r;
		path_key(q, p, "architecture");
		if (!has(a, "architecture"))
			return fail(m, p, "no \"architecture\"");
		if ((r = v_enum(m, q, get(a, "architecture"), arches, "architecture")))
			return r;
		path_key(q, p, "subArchitectures");
		if (get(a, "subArchitectures") &&
		    (r = v_strings(m, q, get(a, "subArchitectures"), arches, "architecture", false)))
			return r;
	}
	return 0;
}

static int v_profile(struct mctx *m, const char *path, json_object *p)
{
	static const char *const docker_keys[] = { "archMap", NULL };
	static const char *const podman_keys[] = { "defaultErrno", NULL };
	char q[PATH_MAX_LEN];
	json_object *v;
	int r;

	if (!json_object_is_type(p, json_type_object))
		return fail(m, path, "a seccomp profile must be an object, not %s", type_name(p));
	if ((r = v_keys(m, path, p, top_keys, docker_keys, podman_keys)))
		return r;
	if (!has(p, "defaultAction"))
		return fail(m, path, "no \"defaultAction\"");
	json_object_object_foreach(p, k, val) {
		path_key(q, path, k);
		if (!strcmp(k, "defaultAction"))
			r = v_enum(m, q, val, actions, "action");
		else if (!strcmp(k, "defaultErrnoRet"))
			r = v_uint(m, q, val, UINT32_MAX, NULL);
		else if (!strcmp(k, "defaultErrno") || !strcmp(k, "listenerPath") ||
			 !strcmp(k, "listenerMetadata"))
			r = v_string(m, q, val, false);
		else if (!strcmp(k, "architectures"))
			r = v_strings(m, q, val, arches, "architecture", false);
		else if (!strcmp(k, "flags"))
			r = v_strings(m, q, val, flags, "flag", false);
		else if (!strcmp(k, "archMap"))
			r = v_archmap(m, q, val);
		else if (!strcmp(k, "syscalls") && val) {
			if (!json_object_is_type(val, json_type_array))
				return fail(m, q, "must be an array, not %s", type_name(val));
			for (size_t i = 0; !r && i < json_object_array_length(val); i++) {
				char pi[PATH_MAX_LEN];

				path_idx(pi, q, i);
				r = v_entry(m, pi, json_object_array_get_idx(val, i));
			}
		}
		if (r)
			return r;
	}
	v = get(p, "defaultAction");
	if ((has(p, "defaultErrnoRet") || has(p, "defaultErrno")) &&
	    !takes_errno(json_object_get_string(v)))
		return fail(m, path, "a default errno on defaultAction %s, which takes none "
				     "(runtimes must fail)", json_object_get_string(v));
	if (has(p, "defaultErrno") && !has(p, "defaultErrnoRet") &&
	    errno_by_name(json_object_get_string(get(p, "defaultErrno"))) < 0)
		return fail(m, path, "defaultErrno \"%s\" without defaultErrnoRet: unknown name",
			    json_object_get_string(get(p, "defaultErrno")));
	/* dockerd: both non-empty is an error */
	if ((v = get(p, "architectures")) && json_object_array_length(v) &&
	    (v = get(p, "archMap")) && json_object_array_length(v))
		return fail(m, path, "both \"architectures\" and \"archMap\": use either");
	return 0;
}

/*
 * The text must mean the same to every reader. json-c keeps the last of
 * two equal keys and cuts a key at \u0000, where Go's encoding/json
 * (dockerd, containers/common) sees another, unknown key that it skips: a
 * profile could then say ERRNO to the runtime and ALLOW to the merger,
 * which prints what it read. So: no key twice in an object, and no escape
 * in a key (every key a profile has is a plain ASCII name, so keys compare
 * as written). And no -0, which json-c reads as 0 and Go refuses for the
 * unsigned integers a profile holds, nor a raw control character in a
 * string, which json-c takes although JSON (and Go) do not. The text is
 * valid JSON otherwise (json-c parsed it), so only its structure is
 * followed here.
 */
struct kframe {
	bool obj, want_key;
	size_t idx;		/* array: the element being read */
	const char *key;	/* object: the key being read */
	size_t klen;
	size_t first;		/* object: its first key in the key list */
};

struct kspan {
	const char *s;
	size_t n;
};

static int kspan_cmp(const void *a, const void *b)
{
	const struct kspan *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return memcmp(x->s, y->s, x->n);
}

/* "$" and the keys and indexes of the first n frames */
static void kpath(char *dst, const struct kframe *fr, size_t n)
{
	size_t len = 1;

	strcpy(dst, "$");
	for (size_t i = 0; i < n && len < PATH_MAX_LEN; i++) {
		int w = fr[i].obj ? snprintf(dst + len, PATH_MAX_LEN - len, ".%.*s",
					     (int)fr[i].klen, fr[i].key)
				  : snprintf(dst + len, PATH_MAX_LEN - len, "[%zu]", fr[i].idx);

		len = w < 0 ? PATH_MAX_LEN : len + (size_t)w;
	}
}

/* Keys of one object (sorted here): the first one present twice, or NULL. */
static const struct kspan *kdup(struct kspan *k, size_t n)
{
	qsort(k, n, sizeof(*k), kspan_cmp);
	for (size_t i = 1; i < n; i++)
		if (!kspan_cmp(&k[i - 1], &k[i]))
			return &k[i];
	return NULL;
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return p;
	q = realloc(p, (*cap = *cap ? *cap * 2 : 16) * size);
	if (!q)
		free(p);
	return q;
}

static size_t number_end(const char *t, size_t i, size_t len)
{
	while (i < len && strchr("+-.eE0123456789", t[i]))
		i++;
	return i;
}

static int same_to_every_reader(struct mctx *m, const char *t, size_t len)
{
	struct kframe *fr = NULL;
	struct kspan *keys = NULL;
	size_t depth = 0, fcap = 0, nkeys = 0, kcap = 0;
	char path[PATH_MAX_LEN];
	int r = 0;

	for (size_t i = 0; !r && i < len; i++) {
		struct kframe *top = depth ? &fr[depth - 1] : NULL;
		const struct kspan *d;
		size_t start, end;
		bool esc = false, ctl = false, is_key;

		switch (t[i]) {
		case '{':
		case '[':
			if (!(fr = grow(fr, &fcap, depth, sizeof(*fr)))) {
				r = -ENOMEM;
				break;
			}
			fr[depth++] = (struct kframe){ .obj = t[i] == '{', .want_key = t[i] == '{',
						       .first = nkeys };
			break;
		case '}':
		case ']':
			if (!depth)	/* not after json-c took the text */
				break;
			top = &fr[--depth];
			if (top->obj && (d = kdup(keys + top->first, nkeys - top->first))) {
				kpath(path, fr, depth);
				r = fail(m, path, "duplicate key \"%.*s\": json-c keeps the "
						  "last, other readers may keep the first",
					 (int)d->n, d->s);
			}
			nkeys = top->first;
			break;
		case ',':
			if (top && top->obj)
				top->want_key = true;
			else if (top)
				top->idx++;
			break;
		case ':':
			if (top)
				top->want_key = false;
			break;
		case '"':
			for (start = ++i; i < len && t[i] != '"'; i++) {
				if (t[i] == '\\')
					esc = true, i++;
				else if ((unsigned char)t[i] < 0x20)
					ctl = true;
			}
			is_key = top && top->obj && top->want_key;
			if (ctl) {
				/* json-c takes it (and writes it back escaped) */
				kpath(path, fr, is_key ? depth - 1 : depth);
				r = fail(m, path, "a raw control character in a string: not JSON, "
						  "Go's decoder refuses it");
				break;
			}
			if (!is_key)
				break;
			top->key = t + start;
			top->klen = i - start;
			if (esc) {
				kpath(path, fr, depth - 1);
				r = fail(m, path, "an escape in a key (\"%.*s\"): json-c cuts "
						  "a key at \\u0000, Go does not",
					 (int)top->klen, top->key);
				break;
			}
			if (!(keys = grow(keys, &kcap, nkeys, sizeof(*keys))))
				r = -ENOMEM;
			else
				keys[nkeys++] = (struct kspan){ t + start, i - start };
			break;
		case '-':
			end = number_end(t, i + 1, len);
			if (end - i == 2 && t[i + 1] == '0') {
				kpath(path, fr, depth);
				r = fail(m, path, "-0: Go's decoder (dockerd) refuses it for an "
						  "unsigned integer, json-c reads 0");
			}
			i = end - 1;
			break;
		default:
			if (t[i] >= '0' && t[i] <= '9')
				i = number_end(t, i, len) - 1;
		}
	}
	free(fr);
	free(keys);
	return r;
}

/*
 * json-c saturates integers beyond 64 bits without saying so, which would
 * turn 99999999999999999999 into a valid-looking 18446744073709551615: find
 * such literals in the text itself. Returns the offset of the first, or -1.
 */
static long long overflowing_integer(const char *t, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		size_t start = i, nd = 0;
		bool neg = false, frac = false;

		if (t[i] == '"') {
			for (i++; i < len && t[i] != '"'; i++)
				if (t[i] == '\\')
					i++;
			continue;
		}
		if (t[i] != '-' && (t[i] < '0' || t[i] > '9'))
			continue;
		if (t[i] == '-') {
			neg = true;
			i++;
		}
		for (; i < len && t[i] >= '0' && t[i] <= '9'; i++)
			nd++;
		if (i < len && (t[i] == '.' || t[i] == 'e' || t[i] == 'E'))
			frac = true;
		while (i < len && (t[i] == '.' || t[i] == 'e' || t[i] == 'E' || t[i] == '+' ||
				   t[i] == '-' || (t[i] >= '0' && t[i] <= '9')))
			i++;
		i--;
		if (frac)
			continue;
		if (neg ? (nd > 19 || (nd == 19 && memcmp(t + start + 1, "9223372036854775808",
							    19) > 0))
			: (nd > 20 || (nd == 20 && memcmp(t + start, "18446744073709551615", 20) > 0)))
			return (long long)start;
	}
	return -1;
}

/* ---- the profile model: names, gates ----------------------------------------------- */

static bool entry_names(json_object *e, const char *name)
{
	json_object *names, *v;

	if ((v = get(e, "name")))
		return !strcmp(json_object_get_string(v), name);
	names = get(e, "names");
	for (size_t i = 0; i < json_object_array_length(names); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(names, i)), name))
			return true;
	return false;
}

/*
 * A rule's errno. Without errnoRet it is EPERM, not the default's errno:
 * runtime-spec says so, and runc and crun do it.
 */
static int entry_errno(json_object *e)
{
	json_object *v;

	if ((v = get(e, "errnoRet")))
		return (int)json_object_get_uint64(v);
	if ((v = get(e, "errno")))
		return errno_by_name(json_object_get_string(v));
	return 1;
}

static json_object *filter_obj(const struct mntsnap__sc_entry *f)
{
	json_object *o = json_object_new_object();

	if (f->gated) {
		json_object *caps = json_object_new_array();

		json_object_array_add(caps, json_object_new_string(MNTSNAP__SC_ADMIN));
		json_object_object_add(o, "caps", caps);
	}
	if (f->min_kernel)
		json_object_object_add(o, "minKernel", json_object_new_string(f->min_kernel));
	return o;
}

static json_object *entry_obj(const struct mntsnap__sc_entry *f)
{
	json_object *o = json_object_new_object(), *names = json_object_new_array();

	if (f->comment)
		json_object_object_add(o, "comment", json_object_new_string(f->comment));
	for (int i = 0; i < f->n; i++)
		json_object_array_add(names, json_object_new_string(f->names[i]));
	json_object_object_add(o, "names", names);
	json_object_object_add(o, "action", json_object_new_string("SCMP_ACT_ALLOW"));
	if (f->gated || f->min_kernel)
		json_object_object_add(o, "includes", filter_obj(f));
	return o;
}

/*
 * Did mntsnap write this entry? Only if it is, key for key, an entry of
 * the Docker fragment with a subset of its names (a merge leaves out what
 * the profile already names). A user's entry with a "mntsnap:" comment but
 * any other content is the user's.
 */
/* Only keys from list, and names all from mntsnap's table. */
static bool shaped(json_object *e, const char *const *keys)
{
	json_object *names = get(e, "names");

	if (!names)
		return false;
	json_object_object_foreach(e, k, v) {
		(void)v;
		if (!in_list(k, keys))
			return false;
	}
	for (size_t i = 0; i < json_object_array_length(names); i++)
		if (!mntsnap__sc_since(json_object_get_string(json_object_array_get_idx(names, i))))
			return false;
	return true;
}

/* The filter is exactly {"caps": ["CAP_SYS_ADMIN"]}, {"minKernel": mk} or both. */
static bool filter_is(json_object *f, bool caps, const char *mk)
{
	json_object *c = get(f, "caps"), *k = get(f, "minKernel");

	if (!json_object_is_type(f, json_type_object) ||
	    (size_t)json_object_object_length(f) != (size_t)(!!caps + !!mk))
		return false;
	if (caps && !(c && json_object_array_length(c) == 1 &&
		      !strcmp(json_object_get_string(json_object_array_get_idx(c, 0)),
			      MNTSNAP__SC_ADMIN)))
		return false;
	return !mk || (k && !strcmp(json_object_get_string(k), mk));
}

/*
 * What mntsnap wrote before its entries kept their gates: "allow query" /
 * "allow full" entries (minKernel 6.8 on statmount/listmount, ungated
 * ioctl/statx/pidfd_open) and ENOSYS entries for everything it did not
 * allow ("ENOSYS without CAP_SYS_ADMIN", "ENOSYS before Linux X"). They
 * are dropped so a merge by this version repairs such a profile: every one
 * either allowed more than the profile or changed an errno.
 */
static bool entry_is_legacy(json_object *e)
{
	static const char *const allow_keys[] = { "comment", "names", "action", "includes", NULL };
	static const char *const deny_keys[] = { "comment", "names", "action", "errnoRet",
						 "excludes", NULL };
	static const char before[] = "mntsnap: ENOSYS before Linux ";
	const char *c = json_object_get_string(get(e, "comment"));
	const char *act = json_object_get_string(get(e, "action"));
	json_object *f, *k;

	if (!c || !act)
		return false;
	if (!strcmp(c, "mntsnap: allow query") || !strcmp(c, "mntsnap: allow full")) {
		if (strcmp(act, "SCMP_ACT_ALLOW") || !shaped(e, allow_keys))
			return false;
		if (!(f = get(e, "includes")))
			return true;
		k = get(f, "minKernel");
		return filter_is(f, has(f, "caps"), k ? json_object_get_string(k) : NULL);
	}
	if (strcmp(act, "SCMP_ACT_ERRNO") || !shaped(e, deny_keys) ||
	    !json_object_is_type(get(e, "errnoRet"), json_type_int) ||
	    json_object_get_int64(get(e, "errnoRet")) != MNTSNAP__SC_ENOSYS)
		return false;
	if (!strcmp(c, "mntsnap: ENOSYS without CAP_SYS_ADMIN"))
		return filter_is(get(e, "excludes"), true, NULL);
	if (!strncmp(c, before, strlen(before)))
		return filter_is(get(e, "excludes"), false, c + strlen(before));
	return false;
}

bool mntsnap__sc_entry_is_ours(json_object *e)
{
	static const char *const keys[] = { "comment", "names", "action", "includes", NULL };
	struct mntsnap__sc_frag f;
	json_object *c = get(e, "comment"), *names = get(e, "names");

	if (entry_is_legacy(e))
		return true;
	if (!c || !names || strcmp(json_object_get_string(get(e, "action")), "SCMP_ACT_ALLOW"))
		return false;
	json_object_object_foreach(e, k, v) {
		(void)v;
		if (!in_list(k, keys))
			return false;
	}
	mntsnap__sc_build(&f, MNTSNAP__SC_DOCKER, MNTSNAP__SC_FULL, true, NULL, NULL);
	for (int i = 0; i < f.n; i++) {
		json_object *want;
		bool same;

		if (strcmp(json_object_get_string(c), f.e[i].comment))
			continue;
		if (f.e[i].gated || f.e[i].min_kernel) {
			want = filter_obj(&f.e[i]);
			same = json_object_equal(want, get(e, "includes"));
			json_object_put(want);
		} else {
			same = !has(e, "includes");
		}
		if (!same)
			continue;
		for (size_t x = 0; same && x < json_object_array_length(names); x++) {
			const char *n = json_object_get_string(json_object_array_get_idx(names, x));

			same = false;
			for (int j = 0; j < f.e[i].n; j++)
				same |= !strcmp(n, f.e[i].names[j]);
		}
		if (same)
			return true;
	}
	return false;
}

static bool named_by_profile(const char *name, void *data)
{
	json_object *sys = data;

	for (size_t i = 0; i < json_object_array_length(sys); i++)
		if (entry_names(json_object_array_get_idx(sys, i), name))
			return true;
	return false;
}

/*
 * --errno-enosys: an ERRNO rule of the profile about statmount/listmount
 * answers ENOSYS instead, so callers fall back to /proc/PID/mountinfo as
 * they do on a kernel without the syscalls. A rule that also names other
 * syscalls is split: those keep their errno.
 */
static json_object *enosys_rules(json_object *sys)
{
	json_object *out = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(sys); i++) {
		json_object *e = json_object_array_get_idx(sys, i), *names, *q, *copy = NULL;
		size_t n;

		json_object_array_add(out, json_object_get(e));
		if (strcmp(json_object_get_string(get(e, "action")), "SCMP_ACT_ERRNO") ||
		    entry_errno(e) == MNTSNAP__SC_ENOSYS)
			continue;
		if (get(e, "name")) {
			if (mntsnap__sc_is_query(json_object_get_string(get(e, "name"))))
				copy = e;
		} else {
			names = get(e, "names");
			n = json_object_array_length(names);
			q = json_object_new_array();
			for (size_t k = 0; k < n; k++) {
				json_object *s = json_object_array_get_idx(names, k);

				if (mntsnap__sc_is_query(json_object_get_string(s)))
					json_object_array_add(q, json_object_get(s));
			}
			if (!json_object_array_length(q)) {
				json_object_put(q);
				continue;
			}
			if (json_object_array_length(q) == n) {
				json_object_put(q);
				copy = e;
			} else if (json_object_deep_copy(e, &copy, NULL)) {
				json_object_put(q);
				continue;
			} else {
				/* the rule minus those names stays where it was */
				for (size_t k = n; k-- > 0;)
					if (mntsnap__sc_is_query(json_object_get_string(
						    json_object_array_get_idx(names, k))))
						json_object_array_del_idx(names, k, 1);
				json_object_object_add(copy, "names", q);
				json_object_array_add(out, copy);
			}
		}
		if (!copy)
			continue;
		json_object_object_add(copy, "errnoRet", json_object_new_int(MNTSNAP__SC_ENOSYS));
		if (has(copy, "errno"))
			json_object_object_add(copy, "errno", json_object_new_string("ENOSYS"));
	}
	return out;
}

/* ---- Docker -> OCI, as dockerd's setupSeccomp resolves a profile ---------------- */

/* Docker's default bounding set (moby oci/caps/defaults.go). */
static const char docker_default_caps[] =
	"CAP_CHOWN,CAP_DAC_OVERRIDE,CAP_FSETID,CAP_FOWNER,CAP_MKNOD,CAP_NET_RAW,CAP_SETGID,"
	"CAP_SETUID,CAP_SETFCAP,CAP_SETPCAP,CAP_NET_BIND_SERVICE,CAP_SYS_CHROOT,CAP_KILL,"
	"CAP_AUDIT_WRITE";

/*
 * uname -m -> moby's arch name (goToNative: what includes/excludes.arches
 * hold) and the seccomp arch its archMap is searched for (nativeToSeccomp).
 */
static const struct {
	const char *machine, *moby, *scmp;
} host_arches[] = {
	{ "x86_64", "amd64", "SCMP_ARCH_X86_64" },
	{ "i386", "x86", "SCMP_ARCH_X86" },
	{ "i686", "x86", "SCMP_ARCH_X86" },
	{ "aarch64", "arm64", "SCMP_ARCH_AARCH64" },
	{ "armv7l", "arm", "SCMP_ARCH_ARM" },
	{ "ppc64le", "ppc64le", "SCMP_ARCH_PPC64LE" },
	{ "ppc64", "ppc64", "SCMP_ARCH_PPC64" },
	{ "s390x", "s390x", "SCMP_ARCH_S390X" },
	{ "riscv64", "riscv64", "SCMP_ARCH_RISCV64" },
	{ "loongarch64", "loongarch64", "SCMP_ARCH_LOONGARCH64" },
	{ "mips64", "mips64", "SCMP_ARCH_MIPS64" },
};

struct host {
	const char *moby, *scmp;
	int kmaj, kmin;
	const char *caps;
};

/* Is cap in the comma-separated list (exact names, as dockerd compares)? */
static bool cap_in(const char *list, const char *cap)
{
	size_t n = strlen(cap);

	for (const char *c = list; *c;) {
		const char *end = strchr(c, ',');
		size_t len = end ? (size_t)(end - c) : strlen(c);

		if (len == n && !strncmp(c, cap, n))
			return true;
		if (!end)
			break;
		c = end + 1;
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

static bool kernel_ge(const struct host *h, json_object *min)
{
	int maj = 0, mn = 0;

	parse_kernel(json_object_get_string(min), &maj, &mn);	/* validated */
	return h->kmaj > maj || (h->kmaj == maj && h->kmin >= mn);
}

static bool entry_applies(json_object *e, const struct host *h)
{
	json_object *f, *v;

	if ((f = get(e, "excludes"))) {
		if (str_in_array(get(f, "arches"), h->moby))
			return false;
		v = get(f, "caps");
		for (size_t i = 0; v && i < json_object_array_length(v); i++)
			if (cap_in(h->caps, json_object_get_string(json_object_array_get_idx(v, i))))
				return false;
		if ((v = get(f, "minKernel")) && kernel_ge(h, v))
			return false;
	}
	if ((f = get(e, "includes"))) {
		if ((v = get(f, "arches")) && json_object_array_length(v) &&
		    !str_in_array(v, h->moby))
			return false;
		v = get(f, "caps");
		for (size_t i = 0; v && i < json_object_array_length(v); i++)
			if (!cap_in(h->caps, json_object_get_string(json_object_array_get_idx(v, i))))
				return false;
		if ((v = get(f, "minKernel")) && !kernel_ge(h, v))
			return false;
	}
	return true;
}

static json_object *oci_entry(json_object *e)
{
	json_object *o = json_object_new_object(), *v;

	if ((v = get(e, "name"))) {
		json_object *names = json_object_new_array();

		json_object_array_add(names, json_object_get(v));
		json_object_object_add(o, "names", names);
	} else {
		json_object_object_add(o, "names", json_object_get(get(e, "names")));
	}
	json_object_object_add(o, "action", json_object_get(get(e, "action")));
	if ((v = get(e, "errnoRet")))
		json_object_object_add(o, "errnoRet", json_object_get(v));
	else if ((v = get(e, "errno")))
		json_object_object_add(o, "errnoRet",
				       json_object_new_int(errno_by_name(json_object_get_string(v))));
	if ((v = get(e, "args")))
		json_object_object_add(o, "args", json_object_get(v));
	return o;
}

static int host_get(struct host *h, const struct mntsnap__merge_opts *o, struct mctx *m)
{
	const char *machine = o->machine;
	struct utsname u;

	if (!machine || !o->kmaj) {
		if (uname(&u)) {
			int e = errno;

			fail(m, "$", "uname: %s", strerror(e));
			return -e;
		}
		if (!machine)
			machine = u.machine;
	}
	h->moby = h->scmp = NULL;
	for (size_t i = 0; i < sizeof(host_arches) / sizeof(host_arches[0]); i++)
		if (!strcmp(machine, host_arches[i].machine)) {
			h->moby = host_arches[i].moby;
			h->scmp = host_arches[i].scmp;
		}
	if (!h->moby) {
		fail(m, "$", "cannot resolve a Docker profile on arch %s", machine);
		return -EOPNOTSUPP;
	}
	if (o->kmaj) {
		h->kmaj = o->kmaj;
		h->kmin = o->kmin;
	} else if (sscanf(u.release, "%d.%d", &h->kmaj, &h->kmin) != 2) {
		return fail(m, "$", "cannot read the kernel version from \"%s\"", u.release);
	}
	h->caps = o->caps ? o->caps : docker_default_caps;
	return 0;
}

static int docker_to_oci(json_object *p, const struct mntsnap__merge_opts *o, struct mctx *m)
{
	json_object *sys, *out, *map, *v;
	struct host h;
	int r = host_get(&h, o, m);

	if (r)
		return r;
	if ((map = get(p, "archMap"))) {
		json_object *arr = NULL;

		for (size_t i = 0; i < json_object_array_length(map); i++) {
			json_object *a = json_object_array_get_idx(map, i), *sub;

			if (strcmp(json_object_get_string(get(a, "architecture")), h.scmp))
				continue;
			arr = json_object_new_array();
			json_object_array_add(arr, json_object_get(get(a, "architecture")));
			sub = get(a, "subArchitectures");
			for (size_t j = 0; sub && j < json_object_array_length(sub); j++)
				json_object_array_add(arr,
						      json_object_get(json_object_array_get_idx(sub, j)));
			break;
		}
		json_object_object_del(p, "archMap");
		/* dockerd leaves architectures empty when the host is not listed */
		if (arr)
			json_object_object_add(p, "architectures", arr);
	}
	if ((v = get(p, "defaultErrno"))) {
		if (!has(p, "defaultErrnoRet"))
			json_object_object_add(
				p, "defaultErrnoRet",
				json_object_new_int(errno_by_name(json_object_get_string(v))));
		json_object_object_del(p, "defaultErrno");
	}
	if (!(sys = get(p, "syscalls")))
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

/* ---- the merge -------------------------------------------------------------------- */

/* The seccomp object inside an OCI config.json, or the profile itself. */
static int find_profile(struct mctx *m, json_object *root, json_object **ret, const char **path,
			bool *is_config)
{
	json_object *lnx;

	*is_config = json_object_is_type(root, json_type_object) &&
		     (has(root, "ociVersion") || has(root, "linux"));
	*ret = root;
	*path = "$";
	if (!*is_config)
		return 0;
	lnx = get(root, "linux");
	if (!json_object_is_type(lnx, json_type_object) || !(*ret = get(lnx, "seccomp")))
		return fail(m, "$.linux.seccomp", "an OCI config without linux.seccomp");
	*path = "$.linux.seccomp";
	return 0;
}

/* ERRNO, TRAP and the KILLs deny; ALLOW, LOG, TRACE and NOTIFY may let it run. */
static bool denies(const char *a)
{
	return !strcmp(a, "SCMP_ACT_ERRNO") || !strcmp(a, "SCMP_ACT_TRAP") ||
	       !strncmp(a, "SCMP_ACT_KILL", strlen("SCMP_ACT_KILL"));
}

static bool has_args(json_object *e)
{
	json_object *a = get(e, "args");

	return a && json_object_array_length(a);
}

/* The default's errno: defaultErrnoRet, else containers/common's name, else EPERM. */
static int default_errno(json_object *p)
{
	json_object *v;

	if ((v = get(p, "defaultErrnoRet")))
		return (int)json_object_get_uint64(v);
	if ((v = get(p, "defaultErrno")))
		return errno_by_name(json_object_get_string(v));
	return 1;
}

/* runc and crun drop a rule whose action (and errno) is the default's. */
static bool is_default(json_object *e, json_object *p)
{
	const char *a = json_object_get_string(get(e, "action"));

	if (strcmp(a, json_object_get_string(get(p, "defaultAction"))))
		return false;
	return !takes_errno(a) || entry_errno(e) == default_errno(p);
}

/*
 * May the ENOSYS denial an older version wrote at sys[i] of profile p go?
 * Only where that allows nothing more. For each syscall it names but
 * statmount and listmount (which the merge allows anyway): a rule before
 * it without args or gates, and not dropped as equal to the default,
 * decides first for every container; or the default denies and every
 * other rule that could apply where the denial did, after it (libseccomp
 * keeps the first of two rules) or with args, denies too. The denial
 * "without CAP_SYS_ADMIN" never meets a rule gated on CAP_SYS_ADMIN. A
 * denial a user wrote in that shape, or one whose rules changed since,
 * stays with the profile's other rules.
 */
static bool legacy_denial_may_go(json_object *p, json_object *sys, size_t i)
{
	json_object *l = json_object_array_get_idx(sys, i), *names = get(l, "names");
	bool noadmin = has(get(l, "excludes"), "caps");
	bool deny_default = denies(json_object_get_string(get(p, "defaultAction")));

	for (size_t k = 0; k < json_object_array_length(names); k++) {
		const char *n = json_object_get_string(json_object_array_get_idx(names, k));
		bool decided = false, widens = !deny_default;

		if (mntsnap__sc_is_query(n))
			continue;
		for (size_t j = 0; j < json_object_array_length(sys); j++) {
			json_object *e = json_object_array_get_idx(sys, j), *f;

			if (j == i || !entry_names(e, n) || mntsnap__sc_entry_is_ours(e))
				continue;
			if (j < i && !has_args(e) && !has(e, "includes") && !has(e, "excludes") &&
			    !is_default(e, p))
				decided = true;
			f = get(e, "includes");
			if (!denies(json_object_get_string(get(e, "action"))) &&
			    !(j < i && !has_args(e)) &&
			    !(noadmin && f && str_in_array(get(f, "caps"), MNTSNAP__SC_ADMIN)))
				widens = true;
		}
		if (!decided && widens)
			return false;
	}
	return true;
}

/* Entries an earlier merge wrote go (where safe); the merge writes them again. */
static int drop_ours(json_object *p)
{
	json_object *sys = get(p, "syscalls");
	size_t n = sys ? json_object_array_length(sys) : 0;
	bool *go = calloc(n ? n : 1, sizeof(*go));

	if (!go)
		return -ENOMEM;
	/* decide on the whole profile first: a dropped entry changes no decision */
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(sys, i);

		go[i] = mntsnap__sc_entry_is_ours(e) &&
			(!denies(json_object_get_string(get(e, "action"))) ||
			 legacy_denial_may_go(p, sys, i));
	}
	for (size_t i = n; i-- > 0;)
		if (go[i])
			json_object_array_del_idx(sys, i, 1);
	free(go);
	return 0;
}

static void merge_profile(json_object *p, const struct mntsnap__merge_opts *o, bool docker_out)
{
	json_object *sys = get(p, "syscalls");
	struct mntsnap__sc_frag f;
	bool admin = o->caps && cap_in(o->caps, MNTSNAP__SC_ADMIN);

	/* An ALLOW default needs nothing (and runtimes drop rules equal to it). */
	if (!strcmp(json_object_get_string(get(p, "defaultAction")), "SCMP_ACT_ALLOW"))
		return;
	if (!sys) {
		sys = json_object_new_array();
		json_object_object_add(p, "syscalls", sys);
	}
	mntsnap__sc_build(&f, docker_out ? MNTSNAP__SC_DOCKER : MNTSNAP__SC_OCI, o->set, admin,
			  named_by_profile, sys);
	for (int i = 0; i < f.n; i++)
		json_object_array_add(sys, entry_obj(&f.e[i]));
}

/* An absent gate: no key, null, {} or [] (Go writes empty ones so). */
static bool no_gate(json_object *e, const char *key)
{
	json_object *v = get(e, key);

	return !v || (json_object_is_type(v, json_type_object) && !json_object_object_length(v)) ||
	       (json_object_is_type(v, json_type_array) && !json_object_array_length(v));
}

/*
 * The result's rule that may keep name from being allowed (a deny, or,
 * under a deny default, an ALLOW with args or a gate), or -1. The merge
 * leaves a syscall the profile names to the profile, so such a rule stays
 * in force: the caller must say so rather than call the syscall allowed.
 */
static long kept_rule(json_object *p, const char *name)
{
	json_object *sys = get(p, "syscalls");
	bool allow_default = !strcmp(json_object_get_string(get(p, "defaultAction")),
				     "SCMP_ACT_ALLOW");

	/* an ALLOW default with nothing to add keeps having no list */
	for (size_t i = 0; sys && i < json_object_array_length(sys); i++) {
		json_object *e = json_object_array_get_idx(sys, i);
		bool allow = !strcmp(json_object_get_string(get(e, "action")), "SCMP_ACT_ALLOW");

		if (!entry_names(e, name))
			continue;
		if (!allow || (!allow_default && !(no_gate(e, "args") && no_gate(e, "includes") &&
						   no_gate(e, "excludes"))))
			return (long)i;
	}
	return -1;
}

/*
 * *what with a clause per statmount/listmount a rule of the profile keeps
 * deciding; "already allowed" becomes "nothing to add" then, since the
 * syscall may well be denied. -ENOMEM leaves *what as it was.
 */
static int say_kept(json_object *p, char **what)
{
	static const char *const query[] = { "statmount", "listmount" };
	static const char all[] = "already allowed: nothing to add";
	char *s = *what && strcmp(*what, all) ? strdup(*what) : NULL;
	bool nothing = *what && !strcmp(*what, all), any = false;

	if (*what && !nothing && !s)
		return -ENOMEM;
	for (size_t q = 0; q < sizeof(query) / sizeof(query[0]); q++) {
		long k = kept_rule(p, query[q]);
		const char *act;
		char *n;

		if (k < 0)
			continue;
		act = json_object_get_string(get(json_object_array_get_idx(get(p, "syscalls"),
									   (size_t)k), "action"));
		if (asprintf(&n, "%s%s%s left to the profile's rule at syscalls[%ld] (%s%s)",
			     s ? s : "", s ? "; " : (nothing ? "nothing to add: " : ""), query[q], k,
			     act, strcmp(act, "SCMP_ACT_ALLOW") ? "" : " on a condition") < 0) {
			free(s);
			return -ENOMEM;
		}
		free(s);
		s = n;
		any = true;
	}
	if (!any) {
		free(s);
		return 0;
	}
	free(*what);
	*what = s;
	return 0;
}

static int parse(struct mctx *m, const char *text, size_t len, json_object **ret)
{
	json_tokener *tok;
	json_object *root;
	size_t end;

	if (memchr(text, '\0', len))
		return fail(m, "$", "a NUL byte at offset %zu: not JSON text",
			    (size_t)((const char *)memchr(text, '\0', len) - text));
	/* Go's encoding/json (dockerd) refuses it too, at offset 0 */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		return fail(m, "$", "starts with a UTF-8 byte order mark: JSON text has none "
			    "(dockerd refuses it too); remove the first 3 bytes");
	if (!(tok = json_tokener_new()))
		return -ENOMEM;
	/* Go's encoding/json (dockerd) takes no comments or other extensions */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!root && json_tokener_get_error(tok) == json_tokener_continue) {
		root = json_tokener_parse_ex(tok, "", 1);	/* a bare number ends here */
		end = len;
	}
	if (!root) {
		int r = fail(m, "$", "not valid JSON: %s (offset %zu)",
			     json_tokener_error_desc(json_tokener_get_error(tok)),
			     json_tokener_get_parse_end(tok));

		json_tokener_free(tok);
		return r;
	}
	json_tokener_free(tok);
	for (; end < len; end++)
		if (!strchr(" \t\r\n", text[end])) {
			json_object_put(root);
			return fail(m, "$", "trailing data after the JSON value at offset %zu", end);
		}
	*ret = root;
	return 0;
}

/*
 * An OCI config states the container's bounding set: --caps may not claim
 * CAP_SYS_ADMIN for a container it says lacks it (OCI has no gate, so the
 * full set would be allowed to it: unshare of a user namespace needs no
 * capability at all).
 */
static int caps_agree(struct mctx *m, json_object *root, const struct mntsnap__merge_opts *o)
{
	json_object *b = get(get(get(root, "process"), "capabilities"), "bounding");

	if (o->set != MNTSNAP__SC_FULL || !o->caps || !cap_in(o->caps, MNTSNAP__SC_ADMIN) ||
	    !json_object_is_type(b, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(b); i++) {
		json_object *c = json_object_array_get_idx(b, i);

		if (json_object_is_type(c, json_type_string) &&
		    !strcmp(json_object_get_string(c), MNTSNAP__SC_ADMIN))
			return 0;
	}
	return fail(m, "$.process.capabilities.bounding", "--caps holds CAP_SYS_ADMIN, the "
		    "container's bounding set does not: the full set would be allowed to it");
}

int mntsnap__sc_merge(const char *text, size_t len, const struct mntsnap__merge_opts *o,
		      char **ret_json, char **ret_err)
{
	struct mctx m = { 0 };
	json_object *root = NULL, *p = NULL, *before = NULL, *sys;
	char *what = NULL;
	const char *path = "$";
	bool is_config = false, docker_out;
	long long off;
	int r;

	*ret_json = *ret_err = NULL;
	if (len > INT32_MAX)
		return fail(&m, "$", "too large"), *ret_err = m.err, -EFBIG;
	r = parse(&m, text, len, &root);
	/* the input as it was: the output changes only what the merge did */
	if (!r && json_object_deep_copy(root, &before, NULL))
		r = -ENOMEM;
	if (!r)
		r = same_to_every_reader(&m, text, len);
	off = r ? -1 : overflowing_integer(text, len);
	m.overflow = off >= 0;
	if (!r)
		r = find_profile(&m, root, &p, &path, &is_config);
	if (!r)
		r = v_profile(&m, path, p);
	if (!r && off >= 0)	/* not in a field we check: still no valid profile */
		r = fail(&m, "$", "an integer beyond 64 bits at offset %lld", off);
	if (!r && is_config && (m.docker || m.podman))
		r = fail(&m, path, "Docker-only keys (archMap, name, comment, includes, excludes, "
				   "errno, ...) in an OCI config, where runtimes ignore them");
	if (!r && is_config)
		r = caps_agree(&m, root, o);
	if (!r && is_config && o->format == MNTSNAP__SC_DOCKER)
		r = fail(&m, path, "--format docker would write Docker-only keys into an OCI "
				   "config, which runtimes do not read: use --format oci");
	/*
	 * --errno-enosys: the profile's own ERRNO rules about statmount/
	 * listmount, whatever the default, before what follows looks at them:
	 * a rule that becomes exactly what an older mntsnap wrote (its comment,
	 * errno 38) is such an entry from then on, and goes with them now as
	 * it would in the next merge.
	 */
	if (!r && o->enosys && (sys = get(p, "syscalls")))
		json_object_object_add(p, "syscalls", enosys_rules(sys)); /* drops the old */
	/*
	 * Entries an earlier merge wrote go (the merge writes them again), and
	 * say nothing about the reader: --format docker puts a commented entry
	 * into an OCI profile, which must stay OCI for what comes next.
	 */
	if (!r && !is_config)
		r = drop_ours(p);
	if (!r && !is_config) {
		m.docker = m.podman = false;
		r = v_profile(&m, path, p);
	}
	/*
	 * An OCI profile goes to an OCI runtime, which reads no includes: gated
	 * Docker entries in it would be unconditional there.
	 */
	if (!r && o->format == MNTSNAP__SC_DOCKER && o->set == MNTSNAP__SC_FULL &&
	    !m.docker && !m.podman)
		r = fail(&m, path, "--format docker --set full on an OCI profile: an OCI runtime "
				   "would ignore the CAP_SYS_ADMIN gate of the entries; use "
				   "--format oci with --caps, or merge into a Docker profile");
	docker_out = o->format == MNTSNAP__SC_DOCKER ||
		     (o->format == MNTSNAP__SC_AUTO && (m.docker || m.podman));
	if (!r && !docker_out && o->set == MNTSNAP__SC_FULL && !o->caps)
		r = fail(&m, path, "--set full in OCI format would allow setns, unshare and the "
				   "mount API for every container (OCI has no capability gate): "
				   "state the container's bounding set with --caps; the rest of "
				   "the full set is added only if it holds CAP_SYS_ADMIN");
	/*
	 * Docker -> OCI resolves first and merges into the result: what the
	 * profile names in rules that do not apply to this container must not
	 * keep mntsnap's fragment out (merging the result again would add it).
	 */
	if (!r && !docker_out && (m.docker || m.podman))
		r = docker_to_oci(p, o, &m);
	if (!r)
		merge_profile(p, o, docker_out);
	if (!r)
		r = mntsnap__sc_splice(text, len, before, root, is_config, ret_json, &what);
	if (!r && (r = say_kept(p, &what))) {
		free(*ret_json);
		*ret_json = NULL;
	}
	if (!r && o->ret_what)
		*o->ret_what = what;
	else
		free(what);
	json_object_put(before);
	json_object_put(root);
	*ret_err = m.err;
	return r;
}
