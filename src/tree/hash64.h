/*
 * hash64.h
 *	  A 64-bit to 32-bit hash for the simplehash tables keyed by two packed
 *	  ids: (parent, func) pairs in the builder, stack ids in stack
 *	  resolution and in the import's caches.
 *
 * It is the finalizer of MurmurHash3: every bit of the key moves every bit
 * of the hash, so keys that differ only in their high half (the parent of a
 * pair) spread as well as keys that differ in their low half.
 */
#ifndef CALLTREE_HASH64_H
#define CALLTREE_HASH64_H

#include "postgres.h"

static inline uint32
calltree_hash64(uint64 k)
{
	k ^= k >> 33;
	k *= UINT64CONST(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64CONST(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return (uint32) k;
}

/* One word mixed into a lane of calltree_hash_bytes */
static inline uint64
calltree_hash_word(uint64 h, uint64 word, uint64 multiplier)
{
	h = (h ^ word) * multiplier;
	return h ^ (h >> 29);
}

/* The eight bytes at `data` mixed into a lane */
static inline uint64
calltree_hash_mix(uint64 h, const char *data, uint64 multiplier)
{
	uint64		word;

	memcpy(&word, data, 8);
	return calltree_hash_word(h, word, multiplier);
}

/*
 * The last 1 to 7 bytes of a key as one word, read without a loop: two
 * words of four that overlap, or the first, middle and last of up to
 * three bytes.  For a given length (which the hash mixes in), every byte
 * lands in the word, and two tails that differ give two words that differ.
 */
static inline uint64
calltree_hash_tail(const char *data, int len)
{
	uint32		first;
	uint32		last;

	if (len < 4)
		return ((uint64) (uint8) data[0] << 16) | ((uint64) (uint8) data[len >> 1] << 8) |
			(uint64) (uint8) data[len - 1];
	memcpy(&first, data, 4);
	memcpy(&last, data + len - 4, 4);
	return ((uint64) last << 32) | first;
}

/*
 * A 32-bit hash of a byte string, eight bytes at a time: for the keys of
 * the intern caches (names of funcs and files, lists of ids), several
 * times faster than hash_bytes on keys of a hundred bytes.  Each word is
 * mixed in by a multiplication and a shift, the whole by the finalizer
 * above, so that every byte reaches every bit of the hash.  Words go to
 * two lanes in turn, which the CPU computes side by side: a long key (a
 * stack's list of ids) then takes half the time of one chain.
 */
static inline uint32
calltree_hash_bytes(const char *data, int len)
{
	uint64		a = UINT64CONST(0x9e3779b97f4a7c15) ^ (uint64) len;
	uint64		b = UINT64CONST(0x6a09e667f3bcc909);

	for (; len >= 16; data += 16, len -= 16)
	{
		a = calltree_hash_mix(a, data, UINT64CONST(0xff51afd7ed558ccd));
		b = calltree_hash_mix(b, data + 8, UINT64CONST(0xc4ceb9fe1a85ec53));
	}
	if (len >= 8)
	{
		a = calltree_hash_mix(a, data, UINT64CONST(0xff51afd7ed558ccd));
		data += 8;
		len -= 8;
	}
	if (len > 0)
		b = calltree_hash_word(b, calltree_hash_tail(data, len), UINT64CONST(0xc4ceb9fe1a85ec53));
	return calltree_hash64(a ^ (b * UINT64CONST(0x9e3779b97f4a7c15)));
}

#endif							/* CALLTREE_HASH64_H */
