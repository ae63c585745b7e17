/* SPDX-License-Identifier: MIT */
/*
 * The hash functions of the library's open-addressing tables, in one
 * place: FNV-1a over bytes (strings, interned superblock data, sibling
 * names) and multiplicative hashing of integers (ids, peer groups).
 * Inline: a table probe costs a few nanoseconds, a call would show.
 */
#ifndef MNTSNAP_HASH_H
#define MNTSNAP_HASH_H

#include <stddef.h>
#include <stdint.h>

#define MNTSNAP_HASH_INIT 2166136261U /* FNV-1a offset basis */

/* FNV-1a of len bytes at p, continuing from h (MNTSNAP_HASH_INIT to start). */
static inline uint32_t mntsnap_hash_bytes(uint32_t h, const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		h = (h ^ *c++) * 16777619U;
	return h;
}

/* The same over a NUL-terminated string, and a separator byte after it. */
static inline uint32_t mntsnap_hash_str(uint32_t h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619U;
	return (h ^ 0xff) * 16777619U;
}

/* A 32-bit key (Knuth's multiplicative constant, 2^32 / phi). */
static inline uint32_t mntsnap_hash_u32(uint32_t x)
{
	return x * 2654435761U;
}

/* A 64-bit id folded to 32 bits (2^64 / phi; the high half mixes best). */
static inline uint32_t mntsnap_hash_u64(uint64_t x)
{
	return (uint32_t)((x * 0x9E3779B97F4A7C15ULL) >> 32);
}

#endif
