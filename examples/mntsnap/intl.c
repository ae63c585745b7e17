// SPDX-License-Identifier: MIT
/*
 * findmnt's messages through findmnt's catalogue (intl.h). dgettext() in
 * the environment's locale by uselocale(), which is per thread and leaves
 * the process's own locale ("C" but for LC_CTYPE, main.c) alone: mntsnap's
 * own messages and strerror() stay English.
 */
#include <string.h>

#include "intl.h"

#if MNTSNAP_HAVE_DGETTEXT
#include <libintl.h>
#endif

/* findmnt's text domain and where Debian's util-linux installs it */
#define UL_DOMAIN "util-linux"
#define UL_LOCALEDIR "/usr/share/locale"

/* the environment's locale; see ul_text_init() */
static locale_t msg_loc;

void ul_text_init(locale_t env)
{
	msg_loc = env;
#if MNTSNAP_HAVE_DGETTEXT
	/* glibc looks there anyway; musl looks nowhere without it */
	if (env)
		bindtextdomain(UL_DOMAIN, UL_LOCALEDIR);
#endif
}

#if MNTSNAP_HAVE_DGETTEXT
const char *ul_ngettext(const char *one, const char *many, unsigned long n)
{
	locale_t old;
	const char *s;

	if (!msg_loc)
		return n == 1 ? one : many;
	old = uselocale(msg_loc);
	s = dngettext(UL_DOMAIN, one, many, n);
	uselocale(old);
	return s;
}

bool ul_catalogue(void)
{
	locale_t old;
	const char *hdr;

	if (!msg_loc)
		return false;
	/* msgid "" is a catalogue's header entry: non-empty once one loaded */
	old = uselocale(msg_loc);
	hdr = dgettext(UL_DOMAIN, "");
	uselocale(old);
	return hdr && *hdr;
}

const char *ul_gettext(const char *msgid)
{
	locale_t old;
	const char *s;

	if (!msg_loc || !*msgid)   /* "": a catalogue's header, never a message */
		return msgid;
	old = uselocale(msg_loc);
	s = dgettext(UL_DOMAIN, msgid);
	uselocale(old);
	return s;
}
#else
bool ul_catalogue(void)
{
	return false;
}

const char *ul_ngettext(const char *one, const char *many, unsigned long n)
{
	return n == 1 ? one : many;
}

const char *ul_gettext(const char *msgid)
{
	return msgid;
}
#endif

const char *ul_gettext_m(char *buf, size_t size, const char *msgid)
{
	const char *s = ul_gettext(msgid);
	size_t n = 0;

	for (; *s; s++) {
		if (n + 3 > size)
			return msgid;
		buf[n++] = *s;
		if (*s != '%' || !s[1])
			continue;
		/* "%%" stays "%%"; "%m" becomes "%s" */
		buf[n++] = s[1] == 'm' ? 's' : s[1];
		s++;
	}
	buf[n] = '\0';
	return buf;
}

const char *ul_strerror(int err)
{
	return msg_loc ? strerror_l(err, msg_loc) : strerror(err);
}
