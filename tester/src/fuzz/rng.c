/* The fuzzer's deterministic generator and the known contents of memory
 * and payloads (fz.h). */
#include "fz.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void fz_rng_seed(struct fz_rng *r, uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t x = seed ^ (a * 0xD1B54A32D192ED03ull) ^ (b * 0x8CB92BA72F3D8DD7ull);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t fz_rng_next(struct fz_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)((fz_rng_next(r) >> 32) * n >> 32) : 0;
}

bool fz_chance(struct fz_rng *r, uint32_t num, uint32_t den)
{
	return fz_below(r, den) < num;
}

/* A byte that says which region and where: the region's number in the
 * high bits of a mix of the offset, so that bytes read from another place
 * or another region do not match. */
uint8_t fz_pattern(unsigned region, uint64_t i)
{
	uint64_t x = (uint64_t)(region + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
	x ^= x >> 29;
	x *= 0x94D049BB133111EBull;
	return (uint8_t)(x >> 56);
}

uint8_t fz_payload_byte(uint32_t fill, uint64_t i)
{
	uint64_t x = ((uint64_t)fill << 32 | 0x5A17u) + i * 0xD6E8FEB86659FD93ull;
	x ^= x >> 32;
	x *= 0xD6E8FEB86659FD93ull;
	return (uint8_t)(x >> 40);
}
