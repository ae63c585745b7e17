/* SPDX-License-Identifier: MIT */
#ifndef MNTSNAP_CLI_INTL_H
#define MNTSNAP_CLI_INTL_H
/*
 * findmnt's words in findmnt's catalogue. findmnt prints its messages
 * through gettext (text domain "util-linux", /usr/share/locale): -x's
 * report and summary, -p's ACTION values, its column descriptions, its
 * error messages. list, show and stat print each message they share
 * with findmnt through the same text domain with the same msgid, so
 * whatever catalogue translates findmnt (Debian: util-linux-locales)
 * translates them alike, in findmnt's LC_MESSAGES and LANGUAGE. Without
 * a catalogue, in the C locale, or without dgettext() in the C library,
 * the msgid itself: findmnt's English.
 *
 * Only these strings: mntsnap's own commands and messages stay English.
 */
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The environment's locale (every category, as findmnt's setlocale(LC_ALL,
 * "") loaded it, or (locale_t)0 when one failed to load: findmnt's C then)
 * for the calls below; main() sets it once, before any command runs, and
 * it lives as long as the process (process state, as setlocale()'s is).
 */
void ul_text_init(locale_t env);

/* findmnt's _(msgid): its translation in the environment's LC_MESSAGES */
const char *ul_gettext(const char *msgid) __attribute__((format_arg(1)));

/*
 * Does findmnt's catalogue speak here (one loaded for the environment's
 * LC_MESSAGES and LANGUAGE)? Then findmnt prints its words, translated or
 * (a msgid the catalogue lacks) English, with none of mntsnap's remarks.
 */
bool ul_catalogue(void);

/* findmnt's P_(one, many, n) */
const char *ul_ngettext(const char *one, const char *many, unsigned long n)
	__attribute__((format_arg(1))) __attribute__((format_arg(2)));

/*
 * ul_gettext(msgid) with each %m made a %s, into buf: findmnt's %m is
 * strerror(errno) in its LC_MESSAGES, which mntsnap passes as ul_strerror()
 * in that %s's place (printf's own %m would be the process's "C" text).
 * The msgid itself when the result does not fit.
 */
const char *ul_gettext_m(char *buf, size_t size, const char *msgid);

/* strerror() in the environment's LC_MESSAGES: findmnt's %m, err()'s reason */
const char *ul_strerror(int err);

/* findmnt's N_(): a msgid marked where it is defined, translated where printed */
#define UL_N_(s) s

#endif
