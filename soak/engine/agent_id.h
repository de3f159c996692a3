/*
 * agent_id — how numbers that must be unique in a whole study (${vu}, ${seq}) are dealt
 * out when N agents (`soak run --agent K/N`) each run a share of it.  Header only, no
 * dependencies: the engine numbers with it, the agent module and the tests check it.
 *
 * A number local to one agent, 0-based (local0), becomes local0 * N + K: agent K takes
 * K, K + N, K + 2N, ...  The agents' sets are disjoint and together they are 1, 2, 3, ...
 * with no hole, so ${vu} of a study of C users is 1..C across the agents exactly as on one
 * machine, and ${seq} never repeats.  With K = N = 1 (not an agent) it is local0 + 1.
 */
#ifndef SOAK_AGENT_ID_H
#define SOAK_AGENT_ID_H

#include <stdint.h>

/* The study-wide number of an agent's local number local0 (0-based); k in 1..n. */
static inline uint64_t agent_id_global(uint64_t local0, int k, int n)
{
	return local0 * (uint64_t)n + (uint64_t)k;
}

/* How many of the study-wide numbers 1..total agent k of n takes: those equal to k
 * modulo n.  Summed over k = 1..n it is total. */
static inline int agent_id_count(int total, int k, int n)
{
	return total <= 0 ? 0 : total / n + (k <= total % n);
}

#endif
