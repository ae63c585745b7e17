// SPDX-License-Identifier: MIT
/*
 * Caller option structs, libbpf style: each starts with its own size, so
 * a caller built against an older header passes fewer bytes and one built
 * against a newer header passes bytes this library must refuse to ignore.
 */
#include <errno.h>
#include <string.h>

#include "opts.h"

int mntsnap__opts_valid(const void *opts, size_t user_sz, size_t known_sz)
{
	const unsigned char *p = opts;

	if (!opts)
		return 0;
	if (user_sz < sizeof(size_t))
		return -EINVAL;
	for (size_t i = known_sz; i < user_sz; i++)
		if (p[i])
			return -E2BIG;
	return 0;
}

int mntsnap__opts_check(const void *opts, size_t user_sz, size_t known_sz, const char *type,
		       struct mntsnap_error *e)
{
	int r = mntsnap__opts_valid(opts, user_sz, known_sz);

	if (r == -EINVAL)
		return mntsnap__set_error(e, r, 0,
					 "struct %s: sz is %zu; declare it with MNTSNAP_OPTS(%s, "
					 "name, ...) or set .sz = sizeof(struct %s)",
					 type, user_sz, type, type);
	if (r == -E2BIG)
		return mntsnap__set_error(e, r, 0,
					 "struct %s: non-zero bytes past the %zu this library "
					 "knows (sz %zu): built against a newer mntsnap.h?",
					 type, known_sz, user_sz);
	return r;
}

int mntsnap__opts_load(void *dst, size_t known_sz, const void *src, size_t user_sz,
		       const char *type, struct mntsnap_error *err)
{
	int r;

	if (!src)
		return 0;
	r = type ? mntsnap__opts_check(src, user_sz, known_sz, type, err)
		 : mntsnap__opts_valid(src, user_sz, known_sz);
	if (r)
		return r;
	memcpy(dst, src, user_sz < known_sz ? user_sz : known_sz);
	return 0;
}
