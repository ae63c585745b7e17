// SPDX-License-Identifier: MIT
/*
 * The CLI's version order (examples/mntsnap/verscmp.c), which orders the
 * *.fstab files of a directory as libmount's versionsort does: the same
 * sign as glibc's strverscmp() for every pair of short strings over the
 * bytes that matter (0, another digit, a letter, a dot, a byte >= 0x80),
 * and the orders strverscmp(3) documents, written out.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "verscmp.h"

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

/* each in order: every earlier one sorts before every later one */
static void in_order(const char *const *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			cr_assert_eq(sign(cli_verscmp(s[i], s[j])), sign((int)i - (int)j),
				     "'%s' vs '%s': %d", s[i], s[j], cli_verscmp(s[i], s[j]));
}

Test(verscmp, documented_orders)
{
	/* strverscmp(3): fractions before integers, a longer integer larger */
	static const char *const digits[] = { "000", "00", "01", "010", "09", "0", "1", "9", "10" };
	/* what libmount reads in turn from a directory */
	static const char *const files[] = { "1.fstab",    "2.fstab",   "10.fstab", "a.fstab",
					     "a01.fstab",  "a1.fstab",  "a9.fstab", "a10.fstab",
					     "v1.0a.fstab", "v1.a.fstab" };

	in_order(digits, sizeof(digits) / sizeof(digits[0]));
	in_order(files, sizeof(files) / sizeof(files[0]));
	cr_assert_eq(cli_verscmp("", ""), 0);
	cr_assert_eq(cli_verscmp("a10b", "a10b"), 0);
	cr_assert_lt(cli_verscmp("", "0"), 0);
	cr_assert_gt(cli_verscmp("\xff", "a"), 0, "bytes compare unsigned");
}

#ifdef __GLIBC__
#define ALPHA "019a.\xc3"
#define MAXLEN 4

/* every string of up to MAXLEN bytes of ALPHA, into out (NUL-separated slots) */
static size_t all_strings(char (*out)[MAXLEN + 1])
{
	size_t n = 0, k = strlen(ALPHA);

	for (size_t len = 0; len <= MAXLEN; len++) {
		size_t count = 1;

		for (size_t i = 0; i < len; i++)
			count *= k;
		for (size_t c = 0; c < count; c++) {
			size_t v = c;

			for (size_t i = 0; i < len; i++, v /= k)
				out[n][len - 1 - i] = ALPHA[v % k];
			out[n][len] = '\0';
			n++;
		}
	}
	return n;
}

Test(verscmp, same_as_glibc)
{
	static char s[1 + 6 + 36 + 216 + 1296][MAXLEN + 1];
	size_t n = all_strings(s), bad = 0;

	cr_assert_eq(n, sizeof(s) / sizeof(s[0]));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			int want = sign(strverscmp(s[i], s[j])), got = sign(cli_verscmp(s[i], s[j]));

			if (want != got && bad++ < 10)
				cr_log_error("'%s' vs '%s': glibc %d, ours %d", s[i], s[j], want, got);
		}
	cr_assert_eq(bad, 0, "%zu pairs differ from glibc's strverscmp", bad);
}
#endif
