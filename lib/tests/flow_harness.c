/*
 * The harness of the flow-analysis tests (flow_harness.h).
 */
#include <stdlib.h>
#include <string.h>

#include "flow_harness.h"

bool raised[ROCE_CODE_COUNT];
bool rings_unkeyed;
unsigned rings_released;

void harness_checks(int *checks, int *failures)
{
	*checks = test_checks;
	*failures = test_failures;
}

static void on_answer(void *ctx, void *cookie, const struct roce_flow_answer *a)
{
	struct conv *c = (struct conv *)((char *)ctx - offsetof(struct conv, table));
	uint32_t req = a->request_frame, resp = a->response_frame;
	CHECK((uintptr_t)cookie == req, "cookie %p handed back for frame %u", cookie, req);
	if (c->n_answered < 64) {
		c->answered_req[c->n_answered] = req;
		c->answered_resp[c->n_answered++] = resp;
	}
}

static void on_late(void *ctx, void *cookie, enum roce_flow_value v, uint64_t value)
{
	struct conv *c = (struct conv *)((char *)ctx - offsetof(struct conv, table));
	uintptr_t frame = (uintptr_t)cookie;
	CHECK(v == ROCE_FLOW_V_RATE_AFTER && frame < 64, "late value %d for frame %lu", (int)v, (unsigned long)frame);
	if (frame < 64) {
		CHECK(!c->late_seen[frame], "frame %lu's late value reported twice", (unsigned long)frame);
		c->late_seen[frame] = true;
		c->late_rate_after[frame] = value;
	}
}

static void *record(void *ctx, const void *key, size_t klen, size_t size)
{
	return roce_flow_table_record(*(struct roce_flow_table **)ctx, key, klen, size);
}

static void *ring_alloc(void *ctx, size_t size)
{
	struct conv *c = (struct conv *)((char *)ctx - offsetof(struct conv, table));
	struct ring_mem *m = calloc(1, sizeof *m + size);
	if (!m)
		return NULL;
	m->size = size;
	m->next = c->rings;
	if (c->rings)
		c->rings->prev = m;
	c->rings = m;
	c->ring_bytes += size;
	return m->data;
}

static void ring_release(void *ctx, void *mem, size_t size)
{
	struct conv *c = (struct conv *)((char *)ctx - offsetof(struct conv, table));
	struct ring_mem *m = (struct ring_mem *)((char *)mem - offsetof(struct ring_mem, data));
	CHECK(m->size == size, "a ring of %zu bytes released as %zu", m->size, size);
	if (m->prev)
		m->prev->next = m->next;
	else
		c->rings = m->next;
	if (m->next)
		m->next->prev = m->prev;
	c->ring_bytes -= m->size;
	c->released_bytes += m->size;
	c->released++;
	free(m);
}

void harness_init(struct conv *c, unsigned pmtu)
{
	memset(c, 0, sizeof *c);
	c->table = roce_flow_table_new();
	c->env = (struct roce_flow_env){ .ctx = &c->table, .record = record, .answered = on_answer, .late = on_late };
	if (rings_unkeyed) {
		c->env.alloc = ring_alloc;
		c->env.release = ring_release;
	}
	c->pmtu = pmtu;
	c->now_ns = 1000000000ull;
}

void harness_free(struct conv *c)
{
	rings_released += c->released;
	for (struct ring_mem *m = c->rings, *next; m; m = next) {
		next = m->next;
		free(m);
	}
	roce_flow_table_free(c->table);
}

struct roce_flow_result feed(struct conv *c, uint8_t opcode, uint32_t psn, size_t payload_len,
			     const struct pkt_opts *o)
{
	static const struct pkt_opts none;
	if (!o)
		o = &none;
	uint8_t payload[SAMPLE_FRAME_MAX], frame[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	struct roce_desc d;
	sample_desc(&d, opcode, 4, payload, payload_len);
	bool req = roce_opcode(opcode)->flags & ROCE_OPF_REQUEST;
	roce_bth_set_destqp(d.bth, req ? QP_B : QP_A);
	roce_bth_set_psn(d.bth, psn);
	roce_udp_set_sport(d.udp, o->sport ? o->sport : 0xC0DE);
	if (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_RETH))
		roce_reth_set_dmalen(roce_desc_hdr(&d, ROCE_H_RETH),
				     roce_opcode(opcode)->kind == ROCE_K_READ_REQ ? o->dmalen : payload_len);
	if (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_AETH))
		roce_aeth_set_syndrome(roce_desc_hdr(&d, ROCE_H_AETH), o->syndrome ? o->syndrome : roce_syndrome_ack(ROCE_AETH_ACK_UNLIMITED));
	if (o->rkey && (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_RETH)))
		roce_reth_set_rkey(roce_desc_hdr(&d, ROCE_H_RETH), o->rkey);
	if (o->rkey && (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_ATOMICETH)))
		roce_atomiceth_set_rkey(roce_desc_hdr(&d, ROCE_H_ATOMICETH), o->rkey);
	if (o->rkey && (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_IETH)))
		roce_ieth_set_rkey(roce_desc_hdr(&d, ROCE_H_IETH), o->rkey);
	/* Each transmission has its own IPv4 ID, as Linux sends them. */
	roce_ipv4_set_id(d.ip, o->ip_id ? o->ip_id : (uint16_t)(o->copy_of ? o->copy_of : c->frame + 1));
	roce_ipv4_set_ecn(d.ip, o->ecn);
	long n = roce_build_frame(&d, frame, sizeof frame);
	CHECK(n > 0, "build 0x%02x", opcode);
	struct roce_pkt p;
	roce_parse_frame(&p, frame, (size_t)n, (size_t)n, 0);
	c->now_ns += o->gap_ns ? o->gap_ns : 10000;
	c->frame++;
	struct roce_flow_input in = { &p, 4, d.ip + 12, d.ip + 16, o->sport ? o->sport : 0xC0DE,
				      c->frame, c->now_ns, c->pmtu, (void *)(uintptr_t)c->frame, (uint32_t)n, false };
	struct roce_flow_result r;
	roce_flow_packet(&c->env, &in, &r);
	for (unsigned i = 0; i < r.n_findings; i++)
		raised[r.findings[i].code] = true;
	return r;
}

bool has(const struct roce_flow_result *r, enum roce_code code)
{
	for (unsigned i = 0; i < r->n_findings; i++)
		if (r->findings[i].code == code)
			return true;
	return false;
}

unsigned serious(const struct roce_flow_result *r)
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->n_findings; i++)
		n += roce_code_info(r->findings[i].code)->severity >= ROCE_SEV_WARN;
	return n;
}

unsigned errors(const struct roce_flow_result *r)
{
	unsigned n = 0;
	for (unsigned i = 0; i < r->n_findings; i++)
		n += roce_code_info(r->findings[i].code)->severity >= ROCE_SEV_ERROR;
	return n;
}
