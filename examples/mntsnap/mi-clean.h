/* SPDX-License-Identifier: MIT */
/*
 * A hand-made mountinfo line as libmount 2.38 reads it (list -F FILE):
 * what it reads past (runs of blanks and tabs between fields, C white
 * space around numbers) dropped, so that the library's reader of the
 * kernel's own text, which takes one space between fields, reads it.
 */
#ifndef MNTSNAP_MI_CLEAN_H
#define MNTSNAP_MI_CLEAN_H

#include <stddef.h>

/* s past its spaces and tabs (libmount's skip_separator()) */
const char *cli_mi_blanks(const char *s);

/*
 * Line s (no newline, a C string) split as libmount splits it, written
 * at out with one space between fields. out holds 2 * strlen(s) + 2
 * bytes (a major:minor read from the root field is written twice).
 * Returns the length written (no NUL), or 0 with *why set (static text,
 * "FIELD: what", the library's words) when libmount cannot split it:
 * findmnt's "parse error".
 */
size_t cli_mi_clean_line(const char *s, char *out, const char **why);

#endif
