// SPDX-License-Identifier: MIT
/* A small recursive-descent JSON reader that remembers positions. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-mini.h"

#define MAX_DEPTH 64

struct rd {
	const char *s, *end, *p;
	unsigned line;
	const char *line_start;
	char *err;
	size_t errlen;
	int fail;
};

static int rd_fail(struct rd *r, const char *what)
{
	if (!r->fail) {
		snprintf(r->err, r->errlen, "%u:%u: %s", r->line,
			 (unsigned)(r->p - r->line_start) + 1, what);
		r->fail = -EINVAL;
	}
	return -EINVAL;
}

static void skip_ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) {
		if (*r->p == '\n') {
			r->line++;
			r->line_start = r->p + 1;
		}
		r->p++;
	}
}

static struct jm *node(struct rd *r, enum jm_type t)
{
	struct jm *v = calloc(1, sizeof(*v));

	if (!v) {
		r->fail = -ENOMEM;
		return NULL;
	}
	v->type = t;
	v->line = r->line;
	v->col = (unsigned)(r->p - r->line_start) + 1;
	return v;
}

static void put_utf8(char *o, size_t *n, uint32_t c)
{
	if (c < 0x80) {
		o[(*n)++] = (char)c;
	} else if (c < 0x800) {
		o[(*n)++] = (char)(0xc0 | c >> 6);
		o[(*n)++] = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		o[(*n)++] = (char)(0xe0 | c >> 12);
		o[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[(*n)++] = (char)(0x80 | (c & 0x3f));
	} else {
		o[(*n)++] = (char)(0xf0 | c >> 18);
		o[(*n)++] = (char)(0x80 | ((c >> 12) & 0x3f));
		o[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[(*n)++] = (char)(0x80 | (c & 0x3f));
	}
}

static int hex4(struct rd *r, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++, r->p++) {
		char c = r->p < r->end ? *r->p : 0;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return rd_fail(r, "bad \\u escape");
	}
	*out = v;
	return 0;
}

static int escape(struct rd *r, char *o, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;
	uint32_t c, lo;

	if (r->p >= r->end)
		return rd_fail(r, "unterminated string");
	k = strchr(from, *r->p);
	if (*r->p && k) {
		o[(*n)++] = to[k - from];
		r->p++;
		return 0;
	}
	if (*r->p != 'u')
		return rd_fail(r, "bad escape");
	r->p++;
	if (hex4(r, &c))
		return -EINVAL;
	if (c >= 0xd800 && c < 0xdc00) {
		if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u')
			return rd_fail(r, "lone surrogate");
		r->p += 2;
		if (hex4(r, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return rd_fail(r, "bad surrogate pair");
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!c)
		return rd_fail(r, "\\u0000 in a string");
	put_utf8(o, n, c);
	return 0;
}

/* A string at r->p (the opening quote) into a malloc'd buffer. */
static char *string(struct rd *r)
{
	const char *q = r->p + 1;
	size_t n = 0;
	char *o;

	/* decoded is never longer than the source */
	while (q < r->end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	o = malloc((size_t)(q - r->p) + 1);
	if (!o) {
		r->fail = -ENOMEM;
		return NULL;
	}
	r->p++;
	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p;

		if (c < 0x20) {
			rd_fail(r, "control character in a string");
			break;
		}
		if (c == '\\') {
			r->p++;
			if (escape(r, o, &n))
				break;
			continue;
		}
		o[n++] = (char)c;
		r->p++;
	}
	if (!r->fail && r->p >= r->end)
		rd_fail(r, "unterminated string");
	if (r->fail) {
		free(o);
		return NULL;
	}
	r->p++;
	o[n] = '\0';
	return o;
}

static struct jm *value(struct rd *r, int depth);

static int push(struct rd *r, struct jm *v, struct jm *item, char *key)
{
	struct jm **ni = realloc(v->items, (v->n + 1) * sizeof(*ni));
	char **nk;

	if (ni)
		v->items = ni;
	if (!ni)
		goto oom;
	if (v->type == JM_OBJECT) {
		nk = realloc(v->keys, (v->n + 1) * sizeof(*nk));
		if (!nk)
			goto oom;
		v->keys = nk;
		v->keys[v->n] = key;
	}
	v->items[v->n++] = item;
	return 0;
oom:
	r->fail = -ENOMEM;
	free(key);
	jm_free(item);
	return -ENOMEM;
}

static struct jm *container(struct rd *r, int depth, bool obj)
{
	struct jm *v = node(r, obj ? JM_OBJECT : JM_ARRAY);
	char close = obj ? '}' : ']';

	if (!v)
		return NULL;
	if (depth >= MAX_DEPTH) {
		rd_fail(r, "nested too deeply");
		goto fail;
	}
	r->p++;
	skip_ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jm *item;

		skip_ws(r);
		if (obj) {
			if (r->p >= r->end || *r->p != '"') {
				rd_fail(r, "expected a key string");
				goto fail;
			}
			key = string(r);
			if (!key)
				goto fail;
			if (jm_get(v, key)) {
				free(key);
				rd_fail(r, "duplicate key");
				goto fail;
			}
			skip_ws(r);
			if (r->p >= r->end || *r->p != ':') {
				free(key);
				rd_fail(r, "expected ':'");
				goto fail;
			}
			r->p++;
		}
		item = value(r, depth + 1);
		if (!item) {
			free(key);
			goto fail;
		}
		if (push(r, v, item, key))
			goto fail;
		skip_ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return v;
		}
		rd_fail(r, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		goto fail;
	}
fail:
	jm_free(v);
	return NULL;
}

static struct jm *number(struct rd *r)
{
	const char *s = r->p;
	struct jm *v;

	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p >= r->end || *r->p < '0' || *r->p > '9') {
		rd_fail(r, "bad number");
		return NULL;
	}
	while (r->p < r->end && strchr("0123456789.eE+-", *r->p))
		r->p++;
	v = node(r, JM_NUMBER);
	if (!v)
		return NULL;
	v->col -= (unsigned)(r->p - s);
	v->str = strndup(s, (size_t)(r->p - s));
	if (!v->str) {
		r->fail = -ENOMEM;
		jm_free(v);
		return NULL;
	}
	return v;
}

static struct jm *word(struct rd *r, const char *w, enum jm_type t, bool b)
{
	size_t n = strlen(w);
	struct jm *v;

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n)) {
		rd_fail(r, "unexpected character");
		return NULL;
	}
	v = node(r, t);
	if (v)
		v->b = b;
	r->p += n;
	return v;
}

static struct jm *value(struct rd *r, int depth)
{
	struct jm *v;

	skip_ws(r);
	if (r->p >= r->end) {
		rd_fail(r, "unexpected end of input");
		return NULL;
	}
	switch (*r->p) {
	case '{':
		return container(r, depth, true);
	case '[':
		return container(r, depth, false);
	case '"':
		v = node(r, JM_STRING);
		if (v && !(v->str = string(r))) {
			jm_free(v);
			return NULL;
		}
		return v;
	case 't':
		return word(r, "true", JM_BOOL, true);
	case 'f':
		return word(r, "false", JM_BOOL, false);
	case 'n':
		return word(r, "null", JM_NULL, false);
	default:
		return number(r);
	}
}

int jm_parse(const char *text, size_t len, struct jm **ret, char *err, size_t errlen)
{
	struct rd r = { .s = text, .end = text + len, .p = text, .line = 1, .line_start = text,
			.err = err, .errlen = errlen };
	struct jm *v;

	if (memchr(text, '\0', len)) {
		r.p = memchr(text, '\0', len);
		return rd_fail(&r, "NUL byte in the input");
	}
	v = value(&r, 0);
	if (v) {
		skip_ws(&r);
		if (r.p < r.end) {
			rd_fail(&r, "trailing characters after the value");
			jm_free(v);
			v = NULL;
		}
	}
	if (!v)
		return r.fail ? r.fail : -EINVAL;
	*ret = v;
	return 0;
}

const struct jm *jm_get(const struct jm *o, const char *key)
{
	if (!o || o->type != JM_OBJECT)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->items[i];
	return NULL;
}

void jm_free(struct jm *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		jm_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}
