/* Placement hints for the per-packet paths. A front end runs libroce for
 * every packet between the rest of its own pipeline (Wireshark's frame,
 * IP, UDP and column code), which leaves the instruction cache cold: what
 * a packet costs is then mostly the cache lines of code it runs. Code for
 * what healthy traffic never does (raising a finding, formatting an
 * unusual case, going back after a NAK) is put out of line, so that the
 * common path spans fewer lines. Hints only: the code means the same
 * without them. */
#ifndef ROCE_HINTS_H
#define ROCE_HINTS_H

#if defined(__GNUC__) || defined(__clang__)
#define ROCE_COLD __attribute__((cold, noinline))
#else
#define ROCE_COLD
#endif

#endif
