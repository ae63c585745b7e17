/* SPDX-License-Identifier: MIT */
/*
 * The CLI's reader of hand-made mountinfo text (list -F FILE): a line
 * split as libmount 2.38 splits it and written back as the kernel writes
 * it, for the library's strict reader of the kernel's own text.
 */
#include <string.h>

#include "mi-clean.h"

const char *cli_mi_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* libmount's unmangle(): a field ends at a blank (a space or a tab) */
static const char *mi_word(const char *s)
{
	while (*s && *s != ' ' && *s != '\t')
		s++;
	return s;
}

static char *mi_put(char *o, const char *s, const char *e, char after)
{
	memcpy(o, s, (size_t)(e - s));
	o += e - s;
	if (after)
		*o++ = after;
	return o;
}

/* C isspace(): what strtol() and sscanf()'s %u skip before a number */
static const char *mi_space(const char *s)
{
	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	return s;
}

/* what sscanf()'s %u takes once past white space: a sign, then digits */
static const char *mi_scan_u(const char *s)
{
	const char *d = s + (*s == '+' || *s == '-'), *e = d;

	while (*e >= '0' && *e <= '9')
		e++;
	return e == d ? NULL : e;
}

/*
 * The major:minor field at s (blanks before it passed over), as libmount
 * 2.38 reads it: sscanf(s, "%u:%u"), whose %u pass over any C white
 * space, blanks too, while the field itself still ends at its first blank
 * and the root starts after that. So a field of white space alone
 * ("26 \v 0:33 /r") takes its numbers from the next field, which is the
 * root as well, and "0: 33" reads its minor from the root. Written as
 * the two numbers, then what the field holds after them unless that is
 * white space only ("0:33\v"): the rest ("0:3:4", a sign, more than 32
 * bits) is the library's to refuse (README keeps those refusals).
 * Returns the field's end, or NULL when sscanf() reads no two numbers.
 */
static const char *mi_dev(const char *s, char **o)
{
	const char *end = mi_word(s), *maj = mi_space(s), *min, *me, *ne, *p;

	me = mi_scan_u(maj);
	if (!me || *me != ':')
		return NULL;
	min = mi_space(me + 1);
	ne = mi_scan_u(min);
	if (!ne)
		return NULL;
	*o = mi_put(*o, maj, me + 1, '\0');
	*o = mi_put(*o, min, ne, '\0');
	for (p = ne; p < end && *p >= '\v' && *p <= '\r'; p++)
		;
	if (p < end)
		*o = mi_put(*o, ne, end, '\0');
	*(*o)++ = ' ';
	return end;
}

/* why a line cannot be split, as the library says it of the field */
static const char *const mi_missing[] = {
	"mount id: missing", "parent id: missing", "major:minor: missing",
	"root: missing", "mount point: missing", "mount options: missing",
};

static size_t mi_refuse(const char **why, const char *what)
{
	*why = what;
	return 0;
}

/*
 * A mountinfo line split as libmount 2.38 splits it
 * (mnt_parse_mountinfo_line()), written back as the kernel writes it:
 * one space between fields. Six fields apart by blanks (spaces or tabs,
 * any number; before the ids any C white space, as strtol() skips it;
 * major:minor as mi_dev() reads it); the optional fields up to the first
 * " - " (kept as written after one blank, as the library keeps them);
 * the type; "  " after it is an empty source (the kernel's
 * text for one), else blanks then the source; blanks then the
 * superblock options: the library's are the rest of the line, blanks at
 * its end dropped (libmount stops at a blank: a kept difference).
 * Escapes stay as they are. Returns the length at out (a buffer twice as
 * long as s, and two bytes: mi_dev() may write the root's numbers twice),
 * or 0 and *why when libmount cannot split the line either (its "parse
 * error": the line is refused, naming the field as the library would).
 */
size_t cli_mi_clean_line(const char *s, char *out, const char **why)
{
	const char *e, *sep;
	char *o = out;

	for (int i = 0; i < 6; i++, s = e) {
		/* the ids are numbers: strtol() skips white space */
		s = i < 2 ? mi_space(s) : cli_mi_blanks(s);
		if (!*s)
			return mi_refuse(why, mi_missing[i]);
		if (i == 2) {
			e = mi_dev(s, &o);
			if (!e)
				return mi_refuse(why, "major:minor: not MAJOR:MINOR");
			continue;
		}
		e = mi_word(s);
		o = mi_put(o, s, e, i < 5 ? ' ' : '\0');
	}
	sep = strstr(s, " - ");
	if (!sep)
		return mi_refuse(why, "optional fields: missing ' - ' separator");
	/*
	 * the optional fields are the text after the blank that ends the
	 * per-mount options, as written (any white space between fields:
	 * the library reads them so)
	 */
	if (s < sep) {
		/*
		 * "rw\t- - tmpfs": libmount's optional fields are "-"; after
		 * one space that text would be the separator itself. No kernel
		 * writes such a field (README: refused, kept)
		 */
		if (s[1] == '-' && (s + 2 == sep || s[2] == ' '))
			return mi_refuse(why, "optional fields: a field '-' before the ' - ' separator");
		*o++ = ' ';
		o = mi_put(o, s + 1, sep, '\0');
	}
	o = mi_put(o, sep, sep + 3, '\0');
	s = cli_mi_blanks(sep + 3);
	e = mi_word(s);
	if (e == s)
		return mi_refuse(why, "fs type: missing");
	if (!*e)
		return mi_refuse(why, "source: missing");
	o = mi_put(o, s, e, ' ');
	s = e;
	if (s[0] != ' ' || s[1] != ' ') {
		s = cli_mi_blanks(s);
		e = mi_word(s);
		if (e == s)
			return mi_refuse(why, "source: missing");
		o = mi_put(o, s, e, '\0');
		s = e;
	}
	*o++ = ' ';
	s = cli_mi_blanks(s);
	/* blanks alone are no super options ("cgroup cgroup   ") */
	if (!*s)
		return mi_refuse(why, "super options: missing");
	/* the super options are the rest (README: an old cifs line's raw space) */
	for (e = s + strlen(s); e[-1] == ' ' || e[-1] == '\t'; e--)
		;
	o = mi_put(o, s, e, '\0');
	return (size_t)(o - out);
}
