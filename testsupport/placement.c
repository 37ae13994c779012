/*
 * Sample conversation: IBTA 1.5's placement operations (notes §7.5) over
 * RC: a WRITE, then a FLUSH of each placement type (global, persistent)
 * at each selectivity level (the RETH's range, the whole region), then an
 * ATOMIC WRITE; each answered as Linux rxe answers them (rxe_resp.c
 * acknowledge(): send_read_response_ack), with an RDMA READ Response Only
 * of zero length.
 */
#include "conv_build.h"

#define PLT_GLOBAL 1u
#define PLT_PERSISTENT 2u
#define SEL_RANGE 0u
#define SEL_REGION 1u

static void answer(struct conv *c, uint32_t psn, uint32_t msn, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, false, ROCE_OP_RC_READ_RESPONSE_ONLY, c->qp_a, psn, 0);
	roce_aeth_set_msn(conv_hdr(&d, ROCE_H_AETH), msn);
	conv_send(c, &d, 8, ROCE_OK, what);
}

static void flush(struct conv *c, uint32_t psn, unsigned plt, unsigned sel, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, true, ROCE_OP_RC_FLUSH, c->qp_b, psn, 0);
	uint8_t *feth = conv_hdr(&d, ROCE_H_FETH);
	roce_feth_set_plt(feth, plt);
	roce_feth_set_sel(feth, sel);
	/* The range: the 64 bytes written; a region-wide FLUSH ignores it. */
	roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), sel == SEL_RANGE ? 64 : 0);
	conv_send(c, &d, 5, ROCE_OK, what);
}

void sample_conv_placement(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	uint32_t msn = 0;
	conv_req(&c, true, ROCE_OP_RC_WRITE_ONLY, 500, 64, ROCE_OK, "RDMA WRITE Only of 64 bytes");
	flush(&c, 501, PLT_GLOBAL, SEL_RANGE, "FLUSH, placement global, of the WRITE's range");
	answer(&c, 501, msn += 2, "FLUSH response (RDMA READ Response Only, 0 bytes): acknowledges the WRITE too");
	flush(&c, 502, PLT_PERSISTENT, SEL_RANGE, "FLUSH, placement persistent, of the WRITE's range");
	answer(&c, 502, ++msn, "FLUSH response");
	flush(&c, 503, PLT_GLOBAL, SEL_REGION, "FLUSH, placement global, of the whole region");
	answer(&c, 503, ++msn, "FLUSH response");
	flush(&c, 504, PLT_PERSISTENT, SEL_REGION, "FLUSH, placement persistent, of the whole region");
	answer(&c, 504, ++msn, "FLUSH response");
	conv_req(&c, true, ROCE_OP_RC_ATOMIC_WRITE, 505, 8, ROCE_OK, "ATOMIC WRITE of 8 bytes");
	answer(&c, 505, ++msn, "ATOMIC WRITE response (RDMA READ Response Only, 0 bytes)");
}
