/*
 * The tester's flow checks: libroce's per-QP analysis (roce/flow.h) over
 * every packet of a case, both directions, in the order the tester's port
 * sent and received them. The capture point is the tester's own port, the
 * DUT's peer; the findings on the DUT's packets are the case's, judged by
 * the same code as the plugin's and lint's (the tester's own packets, often
 * wrong on purpose, are analysed for context, not judged).
 */
#ifndef ROCE_TESTER_FLOWCHECK_H
#define ROCE_TESTER_FLOWCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/roce.h"

struct flowcheck;

struct flowcheck *flowcheck_new(void);
void flowcheck_free(struct flowcheck *fc);

/* Analyses one frame of the case, numbered from 1 in the order seen;
 * pmtu is its QP's path MTU (0 when unknown). Returns false when the frame
 * is nothing the analysis follows (no BTH, UD, a CNP, ...). */
bool flowcheck_frame(struct flowcheck *fc, const uint8_t *frame, size_t len, uint32_t number, uint64_t ts_ns,
		     unsigned pmtu, struct roce_flow_result *out);

#endif
