// SPDX-License-Identifier: MIT
/*
 * The mount supervisor's policy: an ordered rule list, first match wins,
 * and the option vocabulary shared with the supervisor (mount flags by
 * name, their mount(2) bits and their new-mount-API equivalents).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "supervisor.h"
#include "uapi.h"

struct rule {
	char *fstype, *source, *target;
	char **force, **forbid; /* NULL-terminated, never NULL */
	bool deny;
	int err;
	unsigned grant;
};

struct mntsnap_policy {
	bool default_allow;
	int err;
	struct rule *rules;
	size_t n;
};

static const struct mntsnap__mntflag flags[] = {
	{ "ro", "rw", MNTSNAP_MS_RDONLY, MNTSNAP_K_MOUNT_ATTR_RDONLY, false, "ro" },
	{ "nosuid", "suid", MNTSNAP_K_MS_NOSUID, MNTSNAP_K_MOUNT_ATTR_NOSUID, false, NULL },
	{ "nodev", "dev", MNTSNAP_K_MS_NODEV, MNTSNAP_K_MOUNT_ATTR_NODEV, false, NULL },
	{ "noexec", "exec", MNTSNAP_K_MS_NOEXEC, MNTSNAP_K_MOUNT_ATTR_NOEXEC, false, NULL },
	{ "noatime", "atime", MNTSNAP_K_MS_NOATIME, MNTSNAP_K_MOUNT_ATTR_NOATIME, true, NULL },
	{ "strictatime", "nostrictatime", MNTSNAP_K_MS_STRICTATIME,
	  MNTSNAP_K_MOUNT_ATTR_STRICTATIME, true, NULL },
	{ "relatime", "norelatime", MNTSNAP_K_MS_RELATIME, MNTSNAP_K_MOUNT_ATTR_RELATIME, true,
	  NULL },
	{ "nodiratime", "diratime", MNTSNAP_K_MS_NODIRATIME, MNTSNAP_K_MOUNT_ATTR_NODIRATIME, false,
	  NULL },
	{ "nosymfollow", "symfollow", 0x100U, MNTSNAP_K_MOUNT_ATTR_NOSYMFOLLOW, false, NULL },
	{ "sync", "async", MNTSNAP_MS_SYNCHRONOUS, 0, false, "sync" },
	{ "dirsync", NULL, MNTSNAP_MS_DIRSYNC, 0, false, "dirsync" },
	{ "lazytime", "nolazytime", MNTSNAP_MS_LAZYTIME, 0, false, "lazytime" },
};

#define NFLAGS (sizeof(flags) / sizeof(flags[0]))

const struct mntsnap__mntflag *mntsnap__mntflag_find(const char *name, size_t len,
						     bool *ret_set)
{
	for (size_t i = 0; i < NFLAGS; i++) {
		if (strlen(flags[i].name) == len && !memcmp(flags[i].name, name, len)) {
			*ret_set = true;
			return &flags[i];
		}
		if (flags[i].opposite && strlen(flags[i].opposite) == len &&
		    !memcmp(flags[i].opposite, name, len)) {
			*ret_set = false;
			return &flags[i];
		}
	}
	return NULL;
}

uint32_t mntsnap__mntflag_ms_all(void)
{
	uint32_t all = 0;

	for (size_t i = 0; i < NFLAGS; i++)
		all |= flags[i].ms;
	return all;
}

/* ---- comma lists -------------------------------------------------------- */

struct strbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct strbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 2 > b->cap) {
		size_t cap = (b->len + n + 2) * 2;
		char *p = realloc(b->s, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	if (b->len)
		b->s[b->len++] = ',';
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static char *sb_take(struct strbuf *b)
{
	if (b->oom) {
		free(b->s);
		return NULL;
	}
	return b->s ? b->s : strdup("");
}

/* Length of an option's key: up to '=' or the end of the item. */
static size_t key_len(const char *item, size_t n)
{
	const char *eq = memchr(item, '=', n);

	return eq ? (size_t)(eq - item) : n;
}

/* Call fn for each non-empty item of a comma list; stop on non-zero. */
static int each_item(const char *list, int (*fn)(const char *item, size_t n, void *data),
		     void *data)
{
	const char *p = list;

	while (p && *p) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		int r = n ? fn(p, n, data) : 0;

		if (r)
			return r;
		p = c ? c + 1 : NULL;
	}
	return 0;
}

char *mntsnap__opts_from_ms(uint32_t ms, const char *data)
{
	struct strbuf b = { 0 };

	for (size_t i = 0; i < NFLAGS; i++)
		if (ms & flags[i].ms)
			sb_add(&b, flags[i].name, strlen(flags[i].name));
	if (data && *data)
		sb_add(&b, data, strlen(data));
	return sb_take(&b);
}

/* ---- the policy --------------------------------------------------------- */

int mntsnap_policy_new(bool default_allow, int err, struct mntsnap_policy **ret_policy)
{
	struct mntsnap_policy *p;

	if (!ret_policy || err < 0 || err > 4095)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->default_allow = default_allow;
	p->err = err ? err : EPERM;
	*ret_policy = p;
	return 0;
}

static void strv_free(char **v)
{
	for (char **i = v; i && *i; i++)
		free(*i);
	free(v);
}

static void rule_clear(struct rule *r)
{
	free(r->fstype);
	free(r->source);
	free(r->target);
	strv_free(r->force);
	strv_free(r->forbid);
}

void mntsnap_policy_free(struct mntsnap_policy *policy)
{
	if (!policy)
		return;
	for (size_t i = 0; i < policy->n; i++)
		rule_clear(&policy->rules[i]);
	free(policy->rules);
	free(policy);
}

size_t mntsnap_policy_count(const struct mntsnap_policy *policy)
{
	return policy ? policy->n : 0;
}

static int fail(struct mntsnap_error *e, const char *fmt, const char *what)
{
	if (e) {
		e->err = -EINVAL;
		e->line = 0;
		snprintf(e->msg, sizeof(e->msg), fmt, what);
	}
	return -EINVAL;
}

/*
 * fnmatch(3) does not report a malformed pattern, it just never matches:
 * refuse at load time what would silently match nothing.
 */
static const char *glob_problem(const char *g, bool absolute)
{
	if (!*g)
		return "is empty";
	if (absolute && g[0] != '/' && strcmp(g, "*"))
		return "must start with '/'";
	for (const char *p = g; *p; p++) {
		if (*p == '\\') {
			if (!p[1])
				return "ends with '\\'";
			p++;
		} else if (*p == '[') {
			const char *q = p + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			q = strchr(q, ']');
			if (!q)
				return "has an unclosed '['";
			p = q;
		}
	}
	return NULL;
}

static int copy_glob(const char *g, bool absolute, const char *field, char **out,
		     struct mntsnap_error *e)
{
	const char *why;

	*out = NULL;
	if (!g)
		return 0;
	why = glob_problem(g, absolute);
	if (why) {
		if (e) {
			e->err = -EINVAL;
			e->line = 0;
			snprintf(e->msg, sizeof(e->msg), "%s glob \"%.120s\" %s", field, g, why);
		}
		return -EINVAL;
	}
	*out = strdup(g);
	return *out ? 0 : -ENOMEM;
}

static int copy_list(const char *const *in, bool force, char ***out, struct mntsnap_error *e)
{
	size_t n = 0;
	char **v;

	while (in && in[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	*out = v;
	for (size_t i = 0; i < n; i++) {
		const char *s = in[i];

		if (!*s || strchr(s, ','))
			return fail(e, "%s entry is empty or has a ','", force ? "force" : "forbid");
		v[i] = strdup(s);
		if (!v[i])
			return -ENOMEM;
	}
	return 0;
}

int mntsnap_policy_add(struct mntsnap_policy *policy, const struct mntsnap_policy_rule *rule,
		       struct mntsnap_error *ret_error)
{
	struct mntsnap_policy_rule in = { 0 };
	struct rule r = { 0 }, *nr;
	int e;

	if (!policy || !rule)
		return -EINVAL;
	e = OPTS_LOAD(&in, rule);
	if (e)
		return e;
	if (in.err < 0 || in.err > 4095)
		return fail(ret_error, "errno %s out of range", "value");
	if (in.grant & ~(MNTSNAP_POLICY_GRANT_FULL_PROC | MNTSNAP_POLICY_GRANT_WRITABLE_SYSFS |
			 MNTSNAP_POLICY_GRANT_WRITABLE_CGROUP |
			 MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS))
		return fail(ret_error, "grant %s has unknown bits", "value");
	if (in.fstype && strcmp(in.fstype, "*")) {
		if (!*in.fstype || strchr(in.fstype, ','))
			return fail(ret_error, "fstype \"%s\" is not a filesystem type", in.fstype);
		r.fstype = strdup(in.fstype);
		if (!r.fstype)
			return -ENOMEM;
	}
	e = copy_glob(in.source, false, "source", &r.source, ret_error);
	if (!e)
		e = copy_glob(in.target, true, "target", &r.target, ret_error);
	if (!e)
		e = copy_list(in.force, true, &r.force, ret_error);
	if (!e)
		e = copy_list(in.forbid, false, &r.forbid, ret_error);
	if (e) {
		rule_clear(&r);
		return e;
	}
	r.deny = in.deny;
	r.err = in.err;
	r.grant = in.grant;
	nr = realloc(policy->rules, (policy->n + 1) * sizeof(*nr));
	if (!nr) {
		rule_clear(&r);
		return -ENOMEM;
	}
	policy->rules = nr;
	policy->rules[policy->n++] = r;
	return 0;
}

/* ---- deciding ----------------------------------------------------------- */

struct forbid_scan {
	const char *name;
	bool hit;
};

static int forbid_item(const char *item, size_t n, void *data)
{
	struct forbid_scan *f = data;
	size_t k = key_len(item, n);

	if (strlen(f->name) == k && !memcmp(f->name, item, k)) {
		f->hit = true;
		return 1;
	}
	return 0;
}

static bool glob_ok(const char *glob, const char *s)
{
	return !glob || (s && !fnmatch(glob, s, FNM_PATHNAME));
}

static bool rule_matches(const struct rule *r, const char *fstype, const char *source,
			 const char *target)
{
	if (r->fstype && (!fstype || strcmp(r->fstype, fstype)))
		return false;
	return glob_ok(r->source, source) && glob_ok(r->target, target);
}

static bool asks_forbidden(const struct rule *r, const char *options)
{
	for (char **f = r->forbid; *f; f++) {
		struct forbid_scan s = { .name = *f };

		each_item(options, forbid_item, &s);
		if (s.hit)
			return true;
	}
	return false;
}

int mntsnap_policy_check(const struct mntsnap_policy *policy, const char *fstype,
			 const char *source, const char *target, const char *options,
			 int *ret_rule)
{
	return mntsnap__policy_check(policy, fstype, source, target, options, ret_rule);
}

int mntsnap__policy_check(const struct mntsnap_policy *policy, const char *fstype,
			  const char *source, const char *target, const char *options,
			  int *ret_rule)
{
	if (!policy)
		return -EINVAL;
	for (size_t i = 0; i < policy->n; i++) {
		const struct rule *r = &policy->rules[i];

		if (!rule_matches(r, fstype, source, target))
			continue;
		if (ret_rule)
			*ret_rule = (int)i;
		if (r->deny || asks_forbidden(r, options))
			return -(r->err ? r->err : policy->err);
		return 0;
	}
	if (ret_rule)
		*ret_rule = -1;
	return policy->default_allow ? 0 : -policy->err;
}

int mntsnap__policy_errno(const struct mntsnap_policy *p)
{
	return p->err;
}

bool mntsnap__policy_may_allow(const struct mntsnap_policy *p, const char *fstype)
{
	if (p->default_allow)
		return true;
	for (size_t i = 0; i < p->n; i++)
		if (!p->rules[i].fstype || (fstype && !strcmp(p->rules[i].fstype, fstype)))
			return true;
	return false;
}

/* ---- applying force ----------------------------------------------------- */

struct apply {
	char **force;
	struct strbuf out;
};

/* Is item overridden by a forced option (same key, or a flag's other name)? */
static bool overridden(char **force, const char *item, size_t n)
{
	size_t k = key_len(item, n);
	bool set_i, set_f;
	const struct mntsnap__mntflag *fi = mntsnap__mntflag_find(item, n, &set_i);

	for (char **f = force; *f; f++) {
		size_t fk = key_len(*f, strlen(*f));
		const struct mntsnap__mntflag *ff;

		if (fk == k && !memcmp(*f, item, k))
			return true;
		ff = mntsnap__mntflag_find(*f, strlen(*f), &set_f);
		/* the atime modes exclude each other: one forced, all go */
		if (fi && ff && (fi == ff || (fi->attr_atime && ff->attr_atime)))
			return true;
	}
	return false;
}

static int apply_item(const char *item, size_t n, void *data)
{
	struct apply *a = data;

	if (!overridden(a->force, item, n))
		sb_add(&a->out, item, n);
	return 0;
}

char *mntsnap__opts_force(const char *opts, const char *const *force)
{
	struct apply a = { .force = (char **)force };

	each_item(opts, apply_item, &a);
	for (const char *const *f = force; *f; f++)
		sb_add(&a.out, *f, strlen(*f));
	return sb_take(&a.out);
}

void mntsnap_policy_freep(struct mntsnap_policy **p)
{
	if (p) {
		mntsnap_policy_free(*p);
		*p = NULL;
	}
}

char *mntsnap__policy_apply(const struct mntsnap_policy *p, int rule, const char *asked)
{
	if (rule < 0 || (size_t)rule >= p->n)
		return strdup(asked ? asked : "");
	return mntsnap__opts_force(asked, (const char *const *)p->rules[rule].force);
}

unsigned mntsnap__policy_grant(const struct mntsnap_policy *p, int rule)
{
	return rule < 0 || (size_t)rule >= p->n ? 0 : p->rules[rule].grant;
}
