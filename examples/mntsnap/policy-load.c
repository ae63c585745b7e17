// SPDX-License-Identifier: MIT
/*
 * The supervisor's policy file: JSON read with json-mini (which keeps
 * positions), every key checked, rules handed to mntsnap_policy_add().
 * Errors name the file, line and column of the offending value.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-mini.h"
#include "policy-load.h"

static const struct {
	const char *name;
	int e;
} errnos[] = {
	{ "EPERM", EPERM },   { "EACCES", EACCES }, { "ENODEV", ENODEV }, { "EINVAL", EINVAL },
	{ "EROFS", EROFS },   { "ENOSYS", ENOSYS }, { "EBUSY", EBUSY },   { "ENOENT", ENOENT },
	{ "ENOTSUP", ENOTSUP }, { "EOPNOTSUPP", EOPNOTSUPP }, { "ENOSPC", ENOSPC },
};

/* ---- the policy file ----------------------------------------------------- */

struct loader {
	const char *file;
	char *msg; /* "FILE:LINE:COL: what" on failure */
};

static int lfail(struct loader *l, const struct jm *at, const char *fmt, const char *a,
		 const char *b)
{
	char what[300];

	snprintf(what, sizeof(what), fmt, a, b);
	free(l->msg);
	if (asprintf(&l->msg, "%s:%u:%u: %s", l->file, at ? at->line : 0, at ? at->col : 0,
		     what) < 0)
		l->msg = NULL;
	return -EINVAL;
}

static int load_errno(struct loader *l, const struct jm *v, int *ret)
{
	char *end;
	long n;

	if (v->type == JM_STRING) {
		for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
			if (!strcmp(v->str, errnos[i].name)) {
				*ret = errnos[i].e;
				return 0;
			}
		return lfail(l, v, "unknown errno \"%s\"%s", v->str,
			     " (EPERM, EACCES, ENODEV, EINVAL, EROFS, ENOSYS, EBUSY, ENOENT, "
			     "ENOTSUP, ENOSPC or a number)");
	}
	if (v->type == JM_NUMBER) {
		n = strtol(v->str, &end, 10);
		if (!*end && n > 0 && n < 4096) {
			*ret = (int)n;
			return 0;
		}
	}
	return lfail(l, v, "errno must be a name like \"EPERM\" or a number 1-4095%s%s", "", "");
}

static int load_str(struct loader *l, const struct jm *v, const char *key, const char **ret)
{
	if (v->type != JM_STRING)
		return lfail(l, v, "\"%s\" must be a string%s", key, "");
	*ret = v->str;
	return 0;
}

static int load_list(struct loader *l, const struct jm *v, const char *key, const char ***ret)
{
	const char **list;

	if (v->type != JM_ARRAY)
		return lfail(l, v, "\"%s\" must be an array of strings%s", key, "");
	list = calloc(v->n + 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i]->type != JM_STRING) {
			free(list);
			return lfail(l, v->items[i], "\"%s\" entries must be strings%s", key, "");
		}
		list[i] = v->items[i]->str;
	}
	*ret = list;
	return 0;
}

static const struct {
	const char *name;
	unsigned bit;
} grants[] = {
	{ "full-proc", MNTSNAP_POLICY_GRANT_FULL_PROC },
	{ "writable-sysfs", MNTSNAP_POLICY_GRANT_WRITABLE_SYSFS },
	{ "writable-cgroup", MNTSNAP_POLICY_GRANT_WRITABLE_CGROUP },
	{ "host-credentials", MNTSNAP_POLICY_GRANT_HOST_CREDENTIALS },
};

/* "grant": what the supervisor refuses unless a rule names it. */
static int load_grant(struct loader *l, const struct jm *v, unsigned *ret)
{
	if (v->type != JM_ARRAY)
		return lfail(l, v, "\"grant\" must be an array of strings%s%s", "", "");
	for (size_t i = 0; i < v->n; i++) {
		const struct jm *g = v->items[i];
		size_t k = 0;

		if (g->type != JM_STRING)
			return lfail(l, g, "\"grant\" entries must be strings%s%s", "", "");
		while (k < sizeof(grants) / sizeof(grants[0]) && strcmp(g->str, grants[k].name))
			k++;
		if (k == sizeof(grants) / sizeof(grants[0]))
			return lfail(l, g, "unknown grant \"%s\"%s", g->str,
				     " (full-proc, writable-sysfs, writable-cgroup or host-credentials)");
		*ret |= grants[k].bit;
	}
	return 0;
}

static int load_rule(struct loader *l, struct mntsnap_policy *p, const struct jm *o)
{
	MNTSNAP_OPTS(mntsnap_policy_rule, r);
	const struct jm *glob_at = o;
	const char **force = NULL, **forbid = NULL, *action = NULL;
	struct mntsnap_error e = { 0 };
	int rc = 0;

	if (o->type != JM_OBJECT)
		return lfail(l, o, "a rule must be an object%s%s", "", "");
	for (size_t i = 0; i < o->n && !rc; i++) {
		const char *k = o->keys[i];
		const struct jm *v = o->items[i];

		if (!strcmp(k, "fstype"))
			rc = load_str(l, v, k, &r.fstype);
		else if (!strcmp(k, "source") || !strcmp(k, "target"))
			rc = load_str(l, v, k, k[0] == 's' ? &r.source : &r.target);
		else if (!strcmp(k, "force"))
			rc = load_list(l, v, k, &force);
		else if (!strcmp(k, "forbid"))
			rc = load_list(l, v, k, &forbid);
		else if (!strcmp(k, "action"))
			rc = load_str(l, v, k, &action);
		else if (!strcmp(k, "errno"))
			rc = load_errno(l, v, &r.err);
		else if (!strcmp(k, "grant"))
			rc = load_grant(l, v, &r.grant);
		else
			rc = lfail(l, v, "unknown key \"%s\" in a rule%s", k, "");
	}
	if (!rc && action && strcmp(action, "allow") && strcmp(action, "deny"))
		rc = lfail(l, jm_get(o, "action"), "action \"%s\" is neither \"allow\" nor \"deny\"%s",
			   action, "");
	if (!rc) {
		r.deny = action && !strcmp(action, "deny");
		r.force = force;
		r.forbid = forbid;
		rc = mntsnap_policy_add(p, &r, &e);
		if (rc == -EINVAL) {
			/* point at the field the library names */
			static const char *const fields[] = { "source", "target", "force",
							      "forbid", "fstype" };

			for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
				if (!strncmp(e.msg, fields[i], strlen(fields[i])) &&
				    jm_get(o, fields[i])) {
					glob_at = jm_get(o, fields[i]);
					break;
				}
			rc = lfail(l, glob_at, "%s%s", e.msg, "");
		}
	}
	free(force);
	free(forbid);
	return rc;
}

static int load_top(struct loader *l, const struct jm *top, struct mntsnap_policy **ret)
{
	const struct jm *def = NULL, *err = NULL, *rules = NULL;
	struct mntsnap_policy *p;
	int e = 0, rc;

	if (top->type != JM_OBJECT)
		return lfail(l, top, "the policy must be a JSON object%s%s", "", "");
	for (size_t i = 0; i < top->n; i++) {
		const char *k = top->keys[i];

		if (!strcmp(k, "default"))
			def = top->items[i];
		else if (!strcmp(k, "errno"))
			err = top->items[i];
		else if (!strcmp(k, "rules"))
			rules = top->items[i];
		else
			return lfail(l, top->items[i], "unknown key \"%s\"%s", k, "");
	}
	if (def && (def->type != JM_STRING || (strcmp(def->str, "deny") && strcmp(def->str, "allow"))))
		return lfail(l, def, "\"default\" must be \"deny\" or \"allow\"%s%s", "", "");
	if (err && load_errno(l, err, &e))
		return -EINVAL;
	if (rules && rules->type != JM_ARRAY)
		return lfail(l, rules, "\"rules\" must be an array%s%s", "", "");
	rc = mntsnap_policy_new(def && !strcmp(def->str, "allow"), e, &p);
	if (rc)
		return rc;
	for (size_t i = 0; rules && i < rules->n; i++) {
		rc = load_rule(l, p, rules->items[i]);
		if (rc) {
			mntsnap_policy_free(p);
			return rc;
		}
	}
	*ret = p;
	return 0;
}

int policy_load_text(const char *name, const char *text, size_t len,
		     struct mntsnap_policy **ret, char **ret_msg)
{
	struct loader l = { .file = name };
	struct jm *top = NULL;
	char err[256];
	int rc;

	*ret_msg = NULL;
	rc = jm_parse(text, len, &top, err, sizeof(err));
	if (rc == -EINVAL) {
		if (asprintf(ret_msg, "%s:%s", name, err) < 0)
			*ret_msg = NULL;
		return rc;
	}
	if (rc)
		return rc;
	rc = load_top(&l, top, ret);
	jm_free(top);
	if (rc == -EINVAL)
		*ret_msg = l.msg;
	else
		free(l.msg);
	return rc;
}
