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
