// SPDX-License-Identifier: MIT
/* See pathcache.h: libmount 2.38's cache.c path rules. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "columns.h"
#include "pathcache.h"
#include "tags.h"

void pathcache_init(struct pathcache *c, bool targets)
{
	MNTSNAP_OPTS(mntsnap_capture_opts, opts, .backend = MNTSNAP_BACKEND_MOUNTINFO);

	*c = (struct pathcache){ 0 };
	if (targets && mntsnap_capture(&opts, &c->mounts))
		c->mounts = NULL;
}

void pathcache_free(struct pathcache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->val[i] != c->key[i])
			free(c->val[i]);
		free(c->key[i]);
	}
	free(c->key);
	free(c->val);
	mntsnap_snapshot_free(c->mounts);
	*c = (struct pathcache){ 0 };
}

/* a run of slashes counts as its last one; a segment keeps its leading '/' */
static const char *next_segment(const char *s, size_t *sz)
{
	*sz = 0;
	while (*s == '/' && s[1] == '/')
		s++;
	if (!*s)
		return NULL;
	for (*sz = 1; s[*sz] && s[*sz] != '/'; (*sz)++)
		;
	return s;
}

bool streq_paths(const char *a, const char *b)
{
	while (a && b) {
		size_t as, bs;
		const char *sa = next_segment(a, &as), *sb = next_segment(b, &bs);

		if (as + bs == 0)
			return true;
		/* a trailing slash */
		if (as + bs == 1 && ((sa && *sa == '/') || (sb && *sb == '/')))
			return true;
		if (!sa || !sb || as != bs || strncmp(sa, sb, as))
			return false;
		a = sa + as;
		b = sb + bs;
	}
	return false;
}

char *pathcache_absolute(const char *path)
{
	char cwd[PATH_MAX], *r;
	const char *rel = !strncmp(path, "./", 2) ? path + 2 : strcmp(path, ".") ? path : "";

	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (asprintf(&r, "%s%s%s", cwd, *rel ? "/" : "", rel) < 0)
		return NULL;
	return r;
}

static const char *find(const struct pathcache *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (streq_paths(path, c->key[i]))
			return c->val[i];
	return NULL;
}

/* takes val (malloc'd); the key is a copy of path, or val itself when equal */
static const char *add(struct pathcache *c, const char *path, char *val)
{
	char **k = realloc(c->key, (c->n + 1) * sizeof(*k)), **v;
	char *key;

	if (k)
		c->key = k;
	v = k ? realloc(c->val, (c->n + 1) * sizeof(*v)) : NULL;
	if (v)
		c->val = v;
	key = !strcmp(path, val) ? val : strdup(path);
	if (!k || !v || !key) {
		if (key != val)
			free(key);
		free(val);
		return NULL;
	}
	c->key[c->n] = key;
	c->val[c->n++] = val;
	return val;
}

const char *pathcache_path(struct pathcache *c, const char *path)
{
	const char *p = c->off ? NULL : find(c, path);
	char *r;

	if (c->off)
		return NULL;
	if (p)
		return p;
	if (!*path)
		return NULL;
	/*
	 * canonicalize_path(): a device-mapper node by its /dev/mapper name
	 * too; text that reads as a tag is a path here (findmnt ID=x, which
	 * findmnt may retry as a relative mount point)
	 */
	r = col_resolve(path);
	if (!r && !(r = strdup(path)))
		return NULL;
	return add(c, path, r);
}

char *pathcache_peek(const struct pathcache *c, const char *path)
{
	const char *p = c->off ? NULL : find(c, path);
	char *r;

	if (c->off)
		return NULL;
	if (p)
		return strdup(p);
	if (!*path)
		return NULL;
	r = col_resolve(path);
	return r ? r : strdup(path);
}

const char *pathcache_target(struct pathcache *c, const char *path)
{
	const char *p = c->off ? NULL : find(c, path);
	struct mntsnap_mount m;

	if (c->off)
		return NULL;
	if (p)
		return p;
	for (size_t i = c->mounts ? mntsnap_snapshot_count(c->mounts) : 0; i-- > 0;) {
		mntsnap_snapshot_get(c->mounts, i, &m);
		if (strcmp(m.fs_type, "swap") && streq_paths(m.mount_point, path)) {
			char *d = strdup(path);

			return d ? add(c, path, d) : NULL;
		}
	}
	return pathcache_path(c, path);
}

char *pathcache_spec(struct pathcache *c, const char *spec)
{
	char *name = NULL, *value = NULL, *dev;
	const char *p;

	if (!tags_source(spec, &name, &value)) {
		/* -C: libmount without its cache evaluates the tag afresh */
		dev = c->off ? tags_evaluate(name, value) : tags_cache_resolve(c->tags, name, value);
		free(name);
		free(value);
		return dev;
	}
	/*
	 * no cache: libmount still canonicalizes, it only keeps nothing; an
	 * empty path resolves to nothing (canonicalize_path())
	 */
	if (c->off) {
		char *r = *spec ? col_canonical(spec) : NULL;

		return r || !*spec ? r : strdup(spec);
	}
	p = pathcache_path(c, spec);
	return p ? strdup(p) : NULL;
}
