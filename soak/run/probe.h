/*
 * probe — how fast the machine is right now: the CPU time of a fixed piece of arithmetic.
 * The work never changes, so its time changes only with the core that runs it (its clock,
 * its cache, and on a virtual machine the time the hypervisor takes from it, which the
 * guest counts as the thread's own).  Waiting for a core is not counted: a busy machine
 * is not a slow one (host_saturated says that).
 */
#ifndef SOAK_RUN_PROBE_H
#define SOAK_RUN_PROBE_H

/* The least CPU time of three runs of the work, in µs (about 0.2 ms each here); NAN when
 * the thread's CPU clock cannot be read. */
double probe_us(void);

#endif
