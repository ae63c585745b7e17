// SPDX-License-Identifier: MIT
/*
 * The merged profile as a reviewer wants to read it: the input's own bytes
 * wherever the merge changed nothing. seccomp-merge.c decides on parsed
 * trees; this file writes the result by splicing into the input text:
 *  - nothing changed: the input, byte for byte;
 *  - only the profile's syscalls[] changed (the usual case: a rule added,
 *    an earlier merge's rules replaced, ERRNO rules turned to ENOSYS):
 *    the text before and after that array as it was, every rule kept
 *    copied from the input, and only the rules the merge added or changed
 *    written, in the input's style (its indentation unit, line ends,
 *    "key": spacing, and string lists one per line or inline as its own
 *    rules have them). So `diff -u` shows the added lines and the one
 *    line whose "}" gains a comma;
 *  - anything else changed (a Docker profile resolved for an OCI runtime,
 *    a syscalls[] the profile did not have): the whole document in the
 *    input's style, json-c's key order (the input's).
 * The one-line account of what was done comes from the same comparison.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "seccomp-splice.h"

struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 4096) + n;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

/* ---- a scanner for the spans of valid JSON text ------------------------ */

static size_t skip_ws(const char *t, size_t i, size_t len)
{
	while (i < len && strchr(" \t\r\n", t[i]) && t[i])
		i++;
	return i;
}

/* End of the value starting at i (the text is valid JSON: json-c said so). */
static size_t skip_value(const char *t, size_t i, size_t len)
{
	size_t depth = 0;

	do {
		char c = t[i];

		if (c == '"') {
			for (i++; i < len && t[i] != '"'; i++)
				if (t[i] == '\\')
					i++;
			i++;
		} else if (c == '{' || c == '[') {
			depth++;
			i++;
		} else if (c == '}' || c == ']') {
			depth--;
			i++;
		} else if (strchr(" \t\r\n,:", c)) {
			i++;
		} else {
			while (i < len && !strchr(" \t\r\n,:]}", t[i]))
				i++;
		}
	} while (depth && i < len);
	return i;
}

/* Start of member key's value in the object at o, or 0 (no such member). */
static size_t member(const char *t, size_t o, size_t len, const char *key)
{
	size_t i = skip_ws(t, o + 1, len), kl = strlen(key);

	while (i < len && t[i] == '"') {
		size_t ke = skip_value(t, i, len);
		bool hit = ke - i == kl + 2 && !memcmp(t + i + 1, key, kl);

		i = skip_ws(t, ke, len) + 1; /* past ':' */
		i = skip_ws(t, i, len);
		if (hit)
			return i;
		i = skip_ws(t, skip_value(t, i, len), len);
		if (i < len && t[i] == ',')
			i = skip_ws(t, i + 1, len);
	}
	return 0;
}

/* ---- the input's style ------------------------------------------------- */

struct style {
	char nl[3];        /* "\n" or "\r\n" */
	char unit[16];     /* one level of indentation */
	const char *colon; /* ": " or ":" */
	bool inline_str;   /* string lists on one line: ["a", "b"] */
	const char *isep;  /* their separator: ", " or "," */
};

/* The whitespace that indents the line holding t[i]. */
static size_t line_indent(const char *t, size_t i, const char **ret)
{
	size_t s = i;

	while (s && t[s - 1] != '\n')
		s--;
	*ret = t + s;
	return strspn(t + s, " \t");
}

static void detect_style(const char *t, size_t len, struct style *st)
{
	const char *ind, *k, *names;
	size_t n, i;

	strcpy(st->nl, memmem(t, len, "\r\n", 2) ? "\r\n" : "\n");
	strcpy(st->unit, "\t");
	if (!memchr(t, '\n', len)) /* a document on one line stays one */
		st->nl[0] = st->unit[0] = '\0';
	/* the top object's first member, on a line of its own: one unit in */
	i = skip_ws(t, 0, len);
	if (i < len && t[i] == '{') {
		size_t m = skip_ws(t, i + 1, len);

		n = line_indent(t, m, &ind);
		if (n && n < sizeof(st->unit) && memchr(t + i, '\n', m - i)) {
			memcpy(st->unit, ind, n);
			st->unit[n] = '\0';
		}
	}
	k = memmem(t, len, "\":", 2);
	st->colon = k && k + 2 < t + len && k[2] == ' ' ? ": " : ":";
	names = memmem(t, len, "\"names\"", 7);
	st->inline_str = false;
	st->isep = ", ";
	if (names) {
		const char *b = memchr(names, '[', (size_t)(t + len - names));
		const char *e = b ? memchr(b, ']', (size_t)(t + len - b)) : NULL;

		if (b && e && !memchr(b, '\n', (size_t)(e - b))) {
			const char *c = memchr(b, ',', (size_t)(e - b));

			st->inline_str = true;
			st->isep = c && c[1] == ' ' ? ", " : ",";
		}
	}
}

/* ---- a writer in that style -------------------------------------------- */

static void put_indent(struct sbuf *b, const char *base, int depth, const struct style *st)
{
	if (!st->nl[0])
		return; /* all on one line */
	sb_puts(b, base);
	for (int d = 0; d < depth; d++)
		sb_puts(b, st->unit);
}

static bool all_strings(json_object *a)
{
	size_t n = json_object_array_length(a);

	for (size_t i = 0; i < n; i++)
		if (!json_object_is_type(json_object_array_get_idx(a, i), json_type_string))
			return false;
	return n > 0;
}

static void write_value(struct sbuf *b, json_object *v, const char *base, int depth,
			const struct style *st)
{
	if (json_object_is_type(v, json_type_object)) {
		bool first = true;

		if (!json_object_object_length(v)) {
			sb_puts(b, "{}");
			return;
		}
		sb_puts(b, "{");
		json_object_object_foreach(v, key, val) {
			json_object *ks = json_object_new_string(key);

			sb_puts(b, first ? "" : ",");
			sb_puts(b, st->nl);
			put_indent(b, base, depth + 1, st);
			sb_puts(b, ks ? json_object_to_json_string_ext(ks, JSON_C_TO_STRING_NOSLASHESCAPE)
				      : "\"\"");
			json_object_put(ks);
			sb_puts(b, st->colon);
			write_value(b, val, base, depth + 1, st);
			first = false;
		}
		sb_puts(b, st->nl);
		put_indent(b, base, depth, st);
		sb_puts(b, "}");
	} else if (json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v);
		bool inl = st->inline_str && all_strings(v);

		if (!n) {
			sb_puts(b, "[]");
			return;
		}
		sb_puts(b, "[");
		for (size_t i = 0; i < n; i++) {
			if (i)
				sb_puts(b, inl ? st->isep : ",");
			if (!inl) {
				sb_puts(b, st->nl);
				put_indent(b, base, depth + 1, st);
			}
			write_value(b, json_object_array_get_idx(v, i), base, depth + 1, st);
		}
		if (!inl) {
			sb_puts(b, st->nl);
			put_indent(b, base, depth, st);
		}
		sb_puts(b, "]");
	} else {
		sb_puts(b, json_object_to_json_string_ext(v, JSON_C_TO_STRING_NOSLASHESCAPE));
	}
}

/* ---- what changed ------------------------------------------------------ */

static json_object *profile_of(json_object *root, bool is_config)
{
	json_object *l = NULL, *s = NULL;

	if (!is_config)
		return root;
	return json_object_object_get_ex(root, "linux", &l) &&
			       json_object_object_get_ex(l, "seccomp", &s)
		       ? s
		       : NULL;
}

static json_object *syscalls_of(json_object *p)
{
	json_object *s = NULL;

	return p && json_object_object_get_ex(p, "syscalls", &s) &&
			       json_object_is_type(s, json_type_array)
		       ? s
		       : NULL;
}

/* Equal but for the profile's syscalls[] (both have one)? */
static bool same_but_syscalls(json_object *a, json_object *b, bool is_config)
{
	json_object *ca = NULL, *cb = NULL;
	bool same = false;

	if (json_object_deep_copy(a, &ca, NULL) || json_object_deep_copy(b, &cb, NULL))
		goto out;
	json_object_object_del(profile_of(ca, is_config), "syscalls");
	json_object_object_del(profile_of(cb, is_config), "syscalls");
	same = json_object_equal(ca, cb);
out:
	json_object_put(ca);
	json_object_put(cb);
	return same;
}

static void names_of(struct sbuf *w, json_object *e)
{
	json_object *n = NULL;

	if (!json_object_object_get_ex(e, "names", &n) || !json_object_is_type(n, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(n); i++) {
		sb_puts(w, i ? ", " : "");
		sb_puts(w, json_object_get_string(json_object_array_get_idx(n, i)));
	}
}

static void say(struct sbuf *w, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	sb_puts(w, w->len ? "; " : "");
	sb_puts(w, line);
}

/*
 * The result's syscalls[] against the input's: keep[r] is the input rule
 * the result's rule r is (the input's order kept), or -1 for a rule the
 * merge wrote. A rule the merge changed reads as written, its old self
 * as gone.
 */
static void align(json_object *old, json_object *new, long *keep, bool *gone)
{
	size_t no = json_object_array_length(old), nn = json_object_array_length(new), j = 0;

	for (size_t k = 0; k < no; k++)
		gone[k] = true;
	for (size_t r = 0; r < nn; r++) {
		json_object *e = json_object_array_get_idx(new, r);

		keep[r] = -1;
		for (size_t k = j; k < no; k++) {
			if (json_object_equal(json_object_array_get_idx(old, k), e)) {
				keep[r] = (long)k;
				gone[k] = false;
				j = k + 1;
				break;
			}
		}
	}
}

static bool same_names(json_object *a, json_object *b)
{
	json_object *na = NULL, *nb = NULL;

	return json_object_object_get_ex(a, "names", &na) &&
	       json_object_object_get_ex(b, "names", &nb) && json_object_equal(na, nb);
}

/* One clause per rule: changed in place (same names), removed, added. */
static void account(struct sbuf *w, json_object *old, json_object *new, const long *keep,
		    bool *gone)
{
	size_t no = json_object_array_length(old), nn = json_object_array_length(new);

	for (size_t r = 0; r < nn; r++) {
		json_object *e = json_object_array_get_idx(new, r);
		struct sbuf n = { 0 };
		size_t k;

		if (keep[r] >= 0)
			continue;
		names_of(&n, e);
		for (k = 0; k < no && !(gone[k] && same_names(json_object_array_get_idx(old, k), e));
		     k++)
			;
		if (k < no) {
			gone[k] = false;
			say(w, "changed the rule at syscalls[%zu] (%s)", k, n.p ? n.p : "");
		} else {
			say(w, "added %s in a new rule at syscalls[%zu]", n.p ? n.p : "", r);
		}
		free(n.p);
	}
	for (size_t k = 0; k < no; k++)
		if (gone[k]) {
			struct sbuf n = { 0 };

			names_of(&n, json_object_array_get_idx(old, k));
			say(w, "removed the rule at syscalls[%zu] (%s)", k, n.p ? n.p : "");
			free(n.p);
		}
}

/* The input's text between two offsets, or fallback when it has none. */
static const char *span_or(const char *t, size_t a, size_t b, bool have, const char *fallback,
			   char *buf, size_t cap)
{
	if (!have || b - a >= cap)
		return fallback;
	memcpy(buf, t + a, b - a);
	buf[b - a] = '\0';
	return buf;
}

/*
 * Write the result's syscalls[] into the input's text: rules kept are the
 * input's bytes, separators the input's own (between its first two rules),
 * new rules in its style at its rules' indentation.
 */
static int splice(const char *t, size_t len, size_t arr, json_object *old, json_object *new,
		  const long *keep, const struct style *st, struct sbuf *out)
{
	size_t no = json_object_array_length(old), nn = json_object_array_length(new);
	size_t *s = calloc(no + 1, sizeof(*s)), *e = calloc(no + 1, sizeof(*e)), end, i;
	char open[128], sep[128], close[128], dflt_open[64], dflt_sep[64], dflt_close[64], base[64];
	const char *ind, *o, *p, *c;
	struct style one_line;
	size_t n;

	if (!s || !e) {
		free(s);
		free(e);
		return -ENOMEM;
	}
	i = skip_ws(t, arr + 1, len);
	for (size_t k = 0; k < no; k++) {
		s[k] = i;
		e[k] = skip_value(t, i, len);
		i = skip_ws(t, e[k], len);
		if (t[i] == ',')
			i = skip_ws(t, i + 1, len);
	}
	end = i; /* the ']' */
	/* the rules' indentation: the first rule's, else the array's line + one unit */
	n = line_indent(t, no ? s[0] : arr, &ind);
	if (n >= sizeof(base) - sizeof(st->unit))
		n = 0;
	memcpy(base, ind, n);
	base[n] = '\0';
	if (!no)
		strcat(base, st->unit);
	snprintf(dflt_open, sizeof(dflt_open), "%s%s", st->nl, base);
	snprintf(dflt_sep, sizeof(dflt_sep), ",%s%s", st->nl, base);
	n = line_indent(t, arr, &ind);
	snprintf(dflt_close, sizeof(dflt_close), "%s%.*s", st->nl, (int)(n < 32 ? n : 0), ind);
	/* rules written one a line (or a document on one line): so is a new one */
	if (no && !memchr(t + s[0], '\n', e[0] - s[0])) {
		one_line = *st;
		one_line.nl[0] = one_line.unit[0] = '\0';
		one_line.inline_str = true;
		st = &one_line;
	}
	o = span_or(t, arr + 1, s[0], no > 0, dflt_open, open, sizeof(open));
	p = span_or(t, e[0], s[1], no > 1, dflt_sep, sep, sizeof(sep));
	c = span_or(t, no ? e[no - 1] : 0, end, no > 0, dflt_close, close, sizeof(close));
	sb_put(out, t, arr + 1);
	if (nn)
		sb_puts(out, o);
	for (size_t r = 0; r < nn; r++) {
		if (r)
			sb_puts(out, p);
		if (keep[r] >= 0)
			sb_put(out, t + s[keep[r]], e[keep[r]] - s[keep[r]]);
		else
			write_value(out, json_object_array_get_idx(new, r), base, 0, st);
	}
	if (nn)
		sb_puts(out, c);
	sb_put(out, t + end, len - end);
	free(s);
	free(e);
	return out->oom ? -ENOMEM : 0;
}

int mntsnap__sc_splice(const char *text, size_t len, json_object *before, json_object *after,
		       bool is_config, char **ret_text, char **ret_what)
{
	json_object *old = syscalls_of(profile_of(before, is_config));
	json_object *new = syscalls_of(profile_of(after, is_config));
	struct sbuf out = { 0 }, what = { 0 };
	struct style st;
	size_t prof = skip_ws(text, 0, len), arr = 0;
	long *keep = NULL;
	bool *gone = NULL;
	int r = 0;

	*ret_text = *ret_what = NULL;
	if (json_object_equal(before, after)) {
		sb_put(&out, text, len);
		sb_puts(&what, "already allowed: nothing to add");
		goto done;
	}
	detect_style(text, len, &st);
	/* member() says 0 for none: no value of a member starts the text */
	if (is_config && prof < len)
		prof = member(text, prof, len, "linux");
	if (is_config && prof)
		prof = member(text, prof, len, "seccomp");
	if ((prof || !is_config) && prof < len && text[prof] == '{')
		arr = member(text, prof, len, "syscalls");
	if (old && new && arr && text[arr] == '[' && same_but_syscalls(before, after, is_config)) {
		size_t no = json_object_array_length(old), nn = json_object_array_length(new);

		keep = calloc(nn + 1, sizeof(*keep));
		gone = calloc(no + 1, sizeof(*gone));
		if (!keep || !gone) {
			r = -ENOMEM;
			goto done;
		}
		align(old, new, keep, gone);
		account(&what, old, new, keep, gone);
		r = splice(text, len, arr, old, new, keep, &st, &out);
		goto done;
	}
	/* more than the rules changed: the whole document, in its style */
	write_value(&out, after, "", 0, &st);
	sb_puts(&out, st.nl);
	if (new && !old) {
		struct sbuf n = { 0 };

		for (size_t k = 0; k < json_object_array_length(new); k++) {
			sb_puts(&n, k ? ", " : "");
			names_of(&n, json_object_array_get_idx(new, k));
		}
		say(&what, "added syscalls[] allowing %s", n.p ? n.p : "");
		free(n.p);
	} else {
		say(&what, "changed the profile beyond its rules (a Docker profile resolved for "
			   "an OCI runtime)");
	}
	say(&what, "wrote the whole file again in its own style");
done:
	free(keep);
	free(gone);
	if (!r && (out.oom || what.oom))
		r = -ENOMEM;
	if (r) {
		free(out.p);
		free(what.p);
		return r;
	}
	*ret_text = out.p ? out.p : strdup("");
	*ret_what = what.p;
	return *ret_text ? 0 : -ENOMEM;
}
