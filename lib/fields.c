// SPDX-License-Identifier: MIT
/*
 * The field table (fields.h) as data, and what every user of it shares:
 * finding a row by its bit, comparing two records on one row.
 */
#include <string.h>

#include "fields.h"
#include "snapshot.h"
#include "uapi.h"

/* Bytes of n NUL-terminated strings laid end to end (a list field). */
size_t mntsnap__strlist_len(const char *list, uint32_t n)
{
	size_t len = 0;

	while (n--) {
		size_t l = strlen(list + len);

		len += l + 1;
	}
	return len;
}

const struct mntsnap_field mntsnap__fields[MNTSNAP_NFIELDS] = { MNTSNAP_FIELDS(MNTSNAP__FIELD_ROW) };

/* One bit per row, rows in bit order: the wire codes rows in this order. */
#define BIT_CHECK(N, ...) _Static_assert((MNTSNAP_F_##N & (MNTSNAP_F_##N - 1)) == 0, #N " is one bit");
MNTSNAP_FIELDS(BIT_CHECK)

/* wire tags: a field section's type is 0x100 + tag, a u16 */
#define TAG_CHECK(N, L, K, M, NU, SA, SG, SS, SN, J, JG, C, MI, W, WR)                             \
	_Static_assert((W) < 0xff00 && (!(W) || MNTSNAP_FL_##L <= MNTSNAP_FL_SB),                  \
		       #N ": wire tag out of range, or a level field sections cannot carry");
MNTSNAP_FIELDS(TAG_CHECK)

const struct mntsnap_field *mntsnap__field_of(uint32_t bit)
{
	for (int i = 0; i < MNTSNAP_NFIELDS; i++)
		if (mntsnap__fields[i].bit == bit)
			return &mntsnap__fields[i];
	return NULL;
}

const struct mntsnap_mnt_opt_word mntsnap__mnt_opt_words[MNTSNAP_MNT_OPT_NWORDS] = {
	{ "nosuid", 6, MNTSNAP_ATTR_NOSUID, 0 },
	{ "nodev", 5, MNTSNAP_ATTR_NODEV, 0 },
	{ "noexec", 6, MNTSNAP_ATTR_NOEXEC, 0 },
	{ "noatime", 7, MNTSNAP_ATTR_NOATIME, MNTSNAP_ATTR__ATIME },
	{ "nodiratime", 10, MNTSNAP_ATTR_NODIRATIME, 0 },
	{ "relatime", 8, MNTSNAP_ATTR_RELATIME, MNTSNAP_ATTR__ATIME },
	{ "nosymfollow", 11, MNTSNAP_ATTR_NOSYMFOLLOW, 0 },
	{ "idmapped", 8, MNTSNAP_ATTR_IDMAP, 0 },
};

int mntsnap__mnt_opt_word(const char *p, size_t len)
{
	for (int i = 0; i < MNTSNAP_MNT_OPT_NWORDS; i++)
		if (len == mntsnap__mnt_opt_words[i].len &&
		    !memcmp(p, mntsnap__mnt_opt_words[i].w, len))
			return i;
	return -1;
}

/*
 * The next unknown word of text at *pos (ro/rw, first in the kernel's
 * text and anywhere in a hand-made line's, is attr's): its start, length
 * in *ret_len; NULL when none is left.
 */
static const char *next_unknown(const char *text, size_t *pos, size_t *ret_len)
{
	while (text[*pos]) {
		const char *w = text + *pos;
		size_t n = strcspn(w, ",");
		bool rorw = n == 2 && w[0] == 'r' && (w[1] == 'o' || w[1] == 'w');

		*pos += n + (w[n] == ',');
		if (!rorw && mntsnap__mnt_opt_word(w, n) < 0) {
			*ret_len = n;
			return w;
		}
	}
	return NULL;
}

/* How often the word w[0..len) is among text's unknown words. */
static size_t count_unknown(const char *text, const char *w, size_t len)
{
	size_t pos = 0, n, k = 0;
	const char *u;

	while ((u = next_unknown(text, &pos, &n)))
		k += n == len && !memcmp(u, w, len);
	return k;
}

/* Every unknown word of a as often in b; the texts are at most 255 bytes. */
static bool unknown_within(const char *a, const char *b)
{
	size_t pos = 0, n;
	const char *u;

	while ((u = next_unknown(a, &pos, &n)))
		if (count_unknown(a, u, n) != count_unknown(b, u, n))
			return false;
	return true;
}

bool mntsnap__mnt_opts_text_ne(const struct mntsnap_mount *a, const struct mntsnap_mount *b)
{
	const char *x = a->mnt_opts_text ? a->mnt_opts_text : "";
	const char *y = b->mnt_opts_text ? b->mnt_opts_text : "";

	if (!*x && !*y)
		return false;
	return !unknown_within(x, y) || !unknown_within(y, x);
}

bool mntsnap__strlist_ne(const char *a, uint32_t an, const char *b, uint32_t bn)
{
	size_t la, lb;

	if (an != bn)
		return true;
	la = mntsnap__strlist_len(a, an);
	lb = mntsnap__strlist_len(b, bn);
	return la != lb || memcmp(a, b, la);
}

int mntsnap__field_differs(const struct mntsnap_field *f, const struct mntsnap_mount *a,
			   const struct mntsnap_mount *b)
{
	switch (f->kind) {
	case MNTSNAP_FK_U32:
		return mntsnap__fu32(a, f->off) != mntsnap__fu32(b, f->off);
	case MNTSNAP_FK_U64:
		return mntsnap__fu64(a, f->off) != mntsnap__fu64(b, f->off);
	case MNTSNAP_FK_PAIR:
		return mntsnap__fu32(a, f->off) != mntsnap__fu32(b, f->off) ||
		       mntsnap__fu32(a, f->num_off) != mntsnap__fu32(b, f->num_off);
	case MNTSNAP_FK_STR:
		return strcmp(mntsnap__fstr(a, f), mntsnap__fstr(b, f)) != 0;
	case MNTSNAP_FK_LIST:
		return mntsnap__strlist_ne(mntsnap__fstr(a, f), mntsnap__fnum(a, f), mntsnap__fstr(b, f),
			       mntsnap__fnum(b, f));
	}
	return 0;
}
