/*
 * testrng — a deterministic generator for the unit tests' synthetic data: xorshift64*
 * uniforms and Box-Muller normal draws.  A seed fixes the sequence on every machine.
 */
#ifndef SOAK_TESTRNG_H
#define SOAK_TESTRNG_H

#include <math.h>
#include <stdint.h>

struct rng {
	uint64_t s; /* state: any non-zero seed */
};

/* Uniform in [0, 1). */
static inline double uniform(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (double)((r->s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* Normal with this mean and standard deviation. */
static inline double normal(struct rng *r, double mean, double sd)
{
	double u1 = uniform(r), u2 = uniform(r);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return mean + sd * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

#endif
