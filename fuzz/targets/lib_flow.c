/*
 * libroce's per-QP flow analysis (roce/flow.h) on hostile traffic: one
 * input is a capture, a sequence of frames fed in order to
 * roce_flow_packet, the way the Wireshark plugin feeds it (every packet
 * with a BTH and a defined opcode, parse error or not; addresses from the
 * IP header, or fixed ones for a bare transport as "Decode As" gives); the
 * analysis learns connections from CM REQ/REP MADs itself. At the end,
 * roce_flow_end lists the NAKs left open. The records live in a
 * roce_flow_table, freed at the end (LeakSanitizer).
 *
 * Checked beyond "no crash, no leak":
 * - every result is well formed: a known class, at most the room for
 *   findings, known codes located inside the packet, links only to
 *   earlier frames, a READ response past its count flagged as such;
 * - answered() links a request to a later response, once per request;
 * - the analysis is deterministic: the same capture fed again to a new
 *   table gives the same results.
 *
 * Input: records of length (2 bytes, big-endian), flags, frame.
 *   flags bits 0-1  entry: 0 and 3 roce_parse_frame, 1 roce_parse_ip,
 *                   2 roce_parse_bth (addresses 198.18.0.1 -> .2, or back
 *                   with bit 7)
 *         bits 2-3  path MTU given: unknown, 256, 1024, 4096
 *         bits 4-6  time since the previous frame: 0, 1 us, ... 1 s (x10)
 */
#include "../fuzz.h"

#include <string.h>

#include "roce/flow.h"
#include "roce/roce.h"

#define MAX_FRAMES 256

struct run {
	struct roce_flow_result res[MAX_FRAMES];
	uint32_t answered_by[MAX_FRAMES + 1]; /* by request frame */
	unsigned n;
	unsigned open_naks;
};

/* The analysis has one context for its record store and its callback. */
struct ctx {
	struct roce_flow_table *table;
	struct run *run;
};

static void *record(void *c, const void *key, size_t klen, size_t size)
{
	return roce_flow_table_record(((struct ctx *)c)->table, key, klen, size);
}

static void answered(void *c, void *cookie, const struct roce_flow_answer *a)
{
	struct run *r = ((struct ctx *)c)->run;
	uint32_t request_frame = a->request_frame, response_frame = a->response_frame;
	uint32_t f = (uint32_t)(uintptr_t)cookie;
	FUZZ_CHECK(f == request_frame && f >= 1 && f <= r->n, "answered() for frame %u, cookie %u", request_frame, f);
	FUZZ_CHECK(request_frame < response_frame, "request %u answered by frame %u", request_frame,
		   response_frame);
	FUZZ_CHECK(!r->answered_by[f], "request %u answered twice (%u, %u)", f, r->answered_by[f], response_frame);
	r->answered_by[f] = response_frame;
}

static const uint8_t host_a[16] = { 198, 18, 0, 1 }, host_b[16] = { 198, 18, 0, 2 };

static void open_nak(void *arg, const struct roce_flow_open_nak *o)
{
	struct run *r = arg;
	FUZZ_CHECK(o->nak_frame >= 1 && o->nak_frame <= r->n, "open NAK in frame %u of %u", o->nak_frame, r->n);
	FUZZ_CHECK(o->packets_after < r->n, "%u packets after a NAK in %u frames", o->packets_after, r->n);
	FUZZ_CHECK(o->ip_version == 4 || o->ip_version == 6, "IP version %u", o->ip_version);
	r->open_naks++;
}

static void check_result(const struct roce_pkt *p, uint32_t frame, const struct roce_flow_result *res)
{
	FUZZ_CHECK(res->cls <= ROCE_FLOW_RESPONSE, "class %d", res->cls);
	FUZZ_CHECK(res->n_findings <= ROCE_FLOW_MAX_FINDINGS, "%u findings", res->n_findings);
	for (unsigned i = 0; i < res->n_findings; i++) {
		const struct roce_finding *f = &res->findings[i];
		FUZZ_CHECK(f->code > ROCE_E_END_ && f->code < ROCE_CODE_COUNT, "finding code %d", f->code);
		if (f->len)
			FUZZ_CHECK((uint64_t)f->off + f->len <= p->wirelen, "finding %s at %u+%u past the packet (%u)",
				   roce_code_info(f->code)->name, f->off, f->len, p->wirelen);
		char text[256];
		FUZZ_CHECK(roce_finding_format(f, text, sizeof text) > 0, "finding text");
	}
	FUZZ_CHECK(res->request_frame < frame, "response of frame %u linked to frame %u", frame, res->request_frame);
	FUZZ_CHECK(res->retransmit_of < frame, "frame %u a retransmission of frame %u", frame, res->retransmit_of);
	FUZZ_CHECK(res->nak_frame < frame, "frame %u resends for a NAK in frame %u", frame, res->nak_frame);
	if (res->read_count && res->read_index > res->read_count) {
		/* A response past the request's packets is judged, not hidden. */
		bool extra = false;
		for (unsigned i = 0; i < res->n_findings; i++)
			extra |= res->findings[i].code == ROCE_F_READ_RESP_EXTRA;
		FUZZ_CHECK(extra || res->n_findings == ROCE_FLOW_MAX_FINDINGS,
			   "READ response %u of %u without a finding", res->read_index, res->read_count);
	}
}

/* Feeds the whole input once, into a fresh table. */
static void feed(const uint8_t *data, size_t size, struct run *r, uint8_t **frames, size_t *lens, bool first)
{
	memset(r, 0, sizeof *r);
	struct ctx c = { roce_flow_table_new(), r };
	FUZZ_CHECK(c.table, "no table");
	const struct roce_flow_env env = { .ctx = &c, .record = record, .answered = answered };
	uint64_t ts = 1000000000ull;
	size_t off = 0;
	static const unsigned pmtus[] = { 0, 256, 1024, 4096 };
	for (unsigned n = 0; n < MAX_FRAMES && size - off >= 3; n++) {
		size_t len = (size_t)data[off] << 8 | data[off + 1];
		unsigned flags = data[off + 2];
		off += 3;
		if (len > size - off)
			len = size - off;
		if (first) {
			/* Only the frame's bytes exist: a read past them is an ASan report. */
			frames[n] = malloc(len ? len : 1);
			memcpy(frames[n], data + off, len);
			lens[n] = len;
		}
		off += len;
		uint64_t step = 0;
		for (unsigned k = 0, e = (flags >> 4) & 7; k < e; k++)
			step = step ? step * 10 : 1000;
		ts += step;
		r->n = n + 1;

		struct roce_pkt p;
		unsigned entry = flags & 3;
		if (entry == 1)
			roce_parse_ip(&p, frames[n], lens[n], lens[n], 0);
		else if (entry == 2)
			roce_parse_bth(&p, frames[n], lens[n], lens[n], 0);
		else
			roce_parse_frame(&p, frames[n], lens[n], lens[n], 0);
		if (!(roce_pkt_has(&p, ROCE_H_BTH) && p.op && p.op->name))
			continue; /* the plugin analyses decoded packets only */
		uint8_t ipv = 4;
		const uint8_t *src = (flags & 0x80) ? host_b : host_a, *dst = (flags & 0x80) ? host_a : host_b;
		uint16_t sport = 0xC000;
		const uint8_t *ip;
		if ((ip = roce_pkt_hdr(&p, ROCE_H_IPV4))) {
			src = roce_ipv4_src(ip);
			dst = roce_ipv4_dst(ip);
		} else if ((ip = roce_pkt_hdr(&p, ROCE_H_IPV6))) {
			ipv = 6;
			src = roce_ipv6_src(ip);
			dst = roce_ipv6_dst(ip);
		}
		if (roce_pkt_has(&p, ROCE_H_UDP))
			sport = (uint16_t)roce_udp_sport(roce_pkt_hdr(&p, ROCE_H_UDP));
		struct roce_flow_input in = { &p, ipv, src, dst, sport, n + 1, ts, pmtus[(flags >> 2) & 3],
					      (void *)(uintptr_t)(n + 1), (uint32_t)p.caplen, false };
		roce_flow_packet(&env, &in, &r->res[n]);
		check_result(&p, n + 1, &r->res[n]);
	}
	roce_flow_end(&env, open_nak, r);
	roce_flow_table_free(c.table);
}

static bool same_result(const struct roce_flow_result *a, const struct roce_flow_result *b)
{
	if (a->cls != b->cls || a->expected_psn != b->expected_psn || a->request_frame != b->request_frame ||
	    a->response_ns != b->response_ns || a->src_qpn != b->src_qpn || a->pmtu != b->pmtu ||
	    a->read_index != b->read_index || a->read_count != b->read_count ||
	    a->retransmit_of != b->retransmit_of || a->nak_frame != b->nak_frame ||
	    a->nak_to_resend_ns != b->nak_to_resend_ns || a->new_after_nak != b->new_after_nak ||
	    a->n_findings != b->n_findings)
		return false;
	for (unsigned i = 0; i < a->n_findings; i++)
		if (a->findings[i].code != b->findings[i].code || a->findings[i].off != b->findings[i].off ||
		    a->findings[i].observed != b->findings[i].observed)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run a, b;
	static uint8_t *frames[MAX_FRAMES];
	static size_t lens[MAX_FRAMES];
	feed(data, size, &a, frames, lens, true);
	feed(data, size, &b, frames, lens, false);
	for (unsigned i = 0; i < a.n; i++) {
		/* Results are written only for analysed packets; compare those. */
		FUZZ_CHECK(same_result(&a.res[i], &b.res[i]), "frame %u analysed differently the second time", i + 1);
		FUZZ_CHECK(a.answered_by[i + 1] == b.answered_by[i + 1], "frame %u answered differently", i + 1);
	}
	FUZZ_CHECK(a.open_naks == b.open_naks, "%u NAKs open at the end, then %u", a.open_naks, b.open_naks);
	for (unsigned i = 0; i < a.n; i++) {
		free(frames[i]);
		frames[i] = NULL;
	}
	return 0;
}

/* ---- Seeds: each sample capture as one input ---- */

static uint32_t rd32(const uint8_t *b, bool swap)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return swap ? __builtin_bswap32(v) : v;
}

int fuzz_make_seeds(const char *dir, int argc, char **argv)
{
	int written = 0;
	static uint8_t out[1 << 20];
	for (int i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t gh[24];
		if (!f || fread(gh, 1, 24, f) != 24) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			if (f)
				fclose(f);
			return -1;
		}
		uint32_t magic;
		memcpy(&magic, gh, 4);
		bool swap = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
		bool nsec = magic == 0xa1b23c4du || magic == 0x4d3cb2a1u;
		size_t n = 0;
		uint8_t rh[16];
		uint64_t prev = 0;
		for (unsigned k = 0; k < MAX_FRAMES && fread(rh, 1, 16, f) == 16; k++) {
			uint32_t incl = rd32(rh + 8, swap);
			if (incl > 65535 || n + 3 + incl > sizeof out || fread(out + n + 3, 1, incl, f) != incl)
				break;
			uint64_t t = (uint64_t)rd32(rh, swap) * 1000000000ull +
				     (uint64_t)rd32(rh + 4, swap) * (nsec ? 1 : 1000);
			uint64_t d = k ? t - prev : 0;
			prev = t;
			unsigned e = 0; /* the nearest time step the flags can say */
			for (uint64_t step = 1000; e < 7 && d >= step; step *= 10)
				e++;
			out[n] = (uint8_t)(incl >> 8);
			out[n + 1] = (uint8_t)incl;
			out[n + 2] = (uint8_t)(e << 4);
			n += 3 + incl;
		}
		fclose(f);
		const char *base = strrchr(argv[i], '/');
		if (fuzz_write_seed(dir, base ? base + 1 : argv[i], out, n) != 0)
			return -1;
		written++;
	}
	return written;
}
