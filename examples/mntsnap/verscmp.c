// SPDX-License-Identifier: MIT
/*
 * glibc's strverscmp() order, the one libmount's versionsort gives a
 * directory of *.fstab files (see verscmp.h for why it is ours).
 *
 * The common prefix is walked keeping where it ends: in text, in a digit
 * run that began with 1-9 (an integer), in a run of zeros only, or in a
 * run of zeros then other digits (a fraction). At the first byte that
 * differs, that place and the two bytes' kinds (other, 1-9, 0) decide:
 *  - text, two integers start: the longer digit run is larger, else the
 *    bytes compare;
 *  - inside an integer: the side whose run ends first is smaller, else the
 *    longer run, else the bytes;
 *  - after zeros only: the side whose run ends first is larger ("0" after
 *    "01" and "00"), else the bytes;
 *  - inside a fraction, or text against text: the bytes, as strcmp().
 */
#include <stdbool.h>
#include <stddef.h>

#include "verscmp.h"

enum vs_kind { VS_OTHER, VS_NONZERO, VS_ZERO };

/* where the common prefix ends */
enum vs_place { VS_TEXT, VS_INT, VS_ZEROS, VS_FRAC };

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static enum vs_kind kind(unsigned char c)
{
	if (c == '0')
		return VS_ZERO;
	return is_digit(c) ? VS_NONZERO : VS_OTHER;
}

/* the place after one more byte of kind k */
static enum vs_place step(enum vs_place p, enum vs_kind k)
{
	if (k == VS_OTHER)
		return VS_TEXT;
	if (p == VS_TEXT)
		return k == VS_ZERO ? VS_ZEROS : VS_INT;
	if (p == VS_ZEROS)
		return k == VS_ZERO ? VS_ZEROS : VS_FRAC;
	return p; /* an integer or a fraction goes on */
}

/* the longer digit run after the differing bytes wins; same length: diff */
static int by_length(const unsigned char *a, const unsigned char *b, int diff)
{
	size_t i = 0;

	while (is_digit(a[i]) && is_digit(b[i]))
		i++;
	if (is_digit(a[i]))
		return 1;
	return is_digit(b[i]) ? -1 : diff;
}

int cli_verscmp(const char *a0, const char *b0)
{
	const unsigned char *a = (const unsigned char *)a0, *b = (const unsigned char *)b0;
	enum vs_place p = VS_TEXT;
	enum vs_kind ka, kb;
	size_t i = 0;
	int diff;

	for (; a[i] == b[i]; i++) {
		if (!a[i])
			return 0;
		p = step(p, kind(a[i]));
	}
	ka = kind(a[i]), kb = kind(b[i]);
	diff = a[i] - b[i];
	switch (p) {
	case VS_TEXT:
		if (ka == VS_NONZERO && kb == VS_NONZERO)
			return by_length(a + i + 1, b + i + 1, diff);
		return diff;
	case VS_INT:
		if (ka == VS_OTHER || kb == VS_OTHER)
			return ka == kb ? diff : ka == VS_OTHER ? -1 : 1;
		return by_length(a + i + 1, b + i + 1, diff);
	case VS_ZEROS:
		if (ka == VS_OTHER || kb == VS_OTHER)
			return ka == kb ? diff : ka == VS_OTHER ? 1 : -1;
		return diff;
	default:
		return diff;
	}
}
