/*
 * Every analysis flag and value of flowvals.def with a known answer, from
 * libroce alone: the hand-built sample conversations (the ones the sample
 * captures hold) fed through roce_flow_packet, and the flag or value of a
 * frame checked against what the conversation's frames give, worked out
 * by hand (the plugin's fields.tsv checks the same through tshark).
 * Flags: 1 present, 0 absent. Times in nanoseconds.
 */
#include <string.h>

#include "conversations.h"
#include "testutil.h"

#define MAX_FRAMES 128

struct run {
	struct roce_flow_table *table;
	struct roce_flow_env env;
	uint32_t frames;
	uint64_t last_ts;
	struct roce_flow_result r[MAX_FRAMES + 1];
	uint8_t frame_buf[SAMPLE_FRAME_MAX];
};

static void *record(void *ctx, const void *key, size_t klen, size_t size)
{
	return roce_flow_table_record(((struct run *)ctx)->table, key, klen, size);
}

static void late(void *ctx, void *cookie, enum roce_flow_value v, uint64_t value)
{
	struct run *run = ctx;
	uintptr_t f = (uintptr_t)cookie;
	if (f && f <= MAX_FRAMES) {
		run->r[f].value[v] = value;
		run->r[f].has |= UINT64_C(1) << v;
	}
}

static void emit(void *ctx, const uint8_t *frame, size_t len, uint64_t t_us, enum roce_code expect, const char *what)
{
	(void)expect;
	(void)what;
	struct run *run = ctx;
	if (++run->frames > MAX_FRAMES)
		return;
	struct roce_pkt p;
	roce_parse_frame(&p, frame, len, len, 0);
	struct roce_flow_input in = { .frame = run->frames, .ts_ns = t_us * 1000, .cookie = (void *)(uintptr_t)run->frames,
				      .wire_len = (uint32_t)len };
	run->last_ts = in.ts_ns;
	if (roce_flow_input_from(&in, &p))
		roce_flow_packet(&run->env, &in, &run->r[run->frames]);
}

static struct run *run_conv(void (*gen)(sample_emit_fn, void *))
{
	static struct run run;
	memset(&run, 0, sizeof run);
	run.table = roce_flow_table_new();
	run.env = (struct roce_flow_env){ .ctx = &run, .record = record, .late = late };
	gen(emit, &run);
	roce_flow_finish(&run.env, run.last_ts);
	return &run;
}

/* The flag or value named abbrev ("analysis.rto") of frame f; -1 absent. */
static long long item(const struct run *run, uint32_t f, const char *abbrev)
{
	const struct roce_flow_result *r = &run->r[f];
	for (unsigned i = 0; i < ROCE_FLOW_FLAG_COUNT; i++)
		if (!strcmp(roce_flow_flag_info((enum roce_flow_flag)i)->abbrev, abbrev))
			return (r->flags >> i) & 1;
	for (unsigned v = 0; v < ROCE_FLOW_V_COUNT; v++) {
		if (strcmp(roce_flow_value_info((enum roce_flow_value)v)->abbrev, abbrev))
			continue;
		uint64_t x;
		return roce_flow_value(r, (enum roce_flow_value)v, &x) ? (long long)x : -1;
	}
	CHECK(0, "no flag or value named %s", abbrev);
	return -2;
}

struct want {
	uint32_t frame;
	const char *abbrev;
	long long value; /* -1: the value is absent */
};

static bool covered_flag[ROCE_FLOW_FLAG_COUNT], covered_value[ROCE_FLOW_V_COUNT];

static void cover(const char *abbrev, long long value)
{
	for (unsigned i = 0; i < ROCE_FLOW_FLAG_COUNT; i++)
		if (!strcmp(roce_flow_flag_info((enum roce_flow_flag)i)->abbrev, abbrev) && value == 1)
			covered_flag[i] = true;
	for (unsigned v = 0; v < ROCE_FLOW_V_COUNT; v++)
		if (!strcmp(roce_flow_value_info((enum roce_flow_value)v)->abbrev, abbrev) && value >= 0)
			covered_value[v] = true;
}

static void check(const char *name, void (*gen)(sample_emit_fn, void *), const struct want *w, size_t n)
{
	struct run *run = run_conv(gen);
	for (size_t i = 0; i < n; i++) {
		long long got = item(run, w[i].frame, w[i].abbrev);
		CHECK(got == w[i].value, "%s frame %u: %s is %lld, expected %lld", name, w[i].frame, w[i].abbrev, got,
		      w[i].value);
		cover(w[i].abbrev, w[i].value);
	}
	roce_flow_table_free(run->table);
}

/* flows-rc.pcap: SENDs, WRITEs, a READ of 2500 bytes in 3, atomics, an RNR
 * NAK (1.28 ms) retried after 2 ms, a gap and its NAK, an ACK lost after
 * the capture point and the timeout resend. */
static const struct want rc[] = {
	{ 4, "analysis.packets_in_flight", 1 },	{ 4, "analysis.bytes_in_flight", 100 },
	{ 5, "analysis.ack_rtt", 8000 },		{ 5, "analysis.acks_frame", 4 },
	{ 5, "analysis.packets_in_flight", 0 },	{ 5, "request_in", 4 },
	{ 5, "response_time", 8000 },		{ 4, "analysis.src_qpn", 0x000456 },
	{ 4, "analysis.pmtu", 1024 },		{ 8, "analysis.packets_in_flight", 3 },
	{ 8, "analysis.bytes_in_flight", 2548 },	{ 15, "analysis.bytes_in_flight", 2500 },
	{ 16, "analysis.read_response_time", 8000 }, { 16, "analysis.bytes_in_flight", 1476 },
	{ 16, "analysis.read_index", 1 },		{ 16, "analysis.read_count", 3 },
	{ 17, "analysis.read_response_time", -1 }, { 18, "analysis.bytes_in_flight", 0 },
	{ 19, "analysis.bytes_in_flight", 8 },	{ 20, "analysis.atomic_response_time", 8000 },
	{ 22, "analysis.atomic_response_time", 8000 }, { 26, "analysis.rnr_nak", 1 },
	{ 26, "analysis.nak", 0 },		{ 27, "analysis.rnr_retry", 1 },
	{ 27, "analysis.retransmission", 1 },	{ 27, "analysis.rnr_nak_frame", 26 },
	{ 27, "analysis.rnr_wait", 2005000 },	{ 27, "analysis.rnr_timer", 1280000 },
	{ 27, "analysis.rto", -1 },		{ 27, "analysis.retransmission_of", 25 },
	{ 29, "analysis.psn_gap", 0 },		{ 30, "analysis.psn_gap", 1 },
	{ 30, "analysis.expected_psn", 1014 },	{ 30, "analysis.packets_in_flight", 3 },
	{ 30, "analysis.bytes_in_flight", 128 },	{ 31, "analysis.nak", 1 },
	{ 31, "analysis.seq_nak", 1 },		{ 31, "analysis.nak_oos_frame", 30 },
	{ 31, "analysis.nak_latency", 8000 },	{ 31, "analysis.bytes_in_flight", 64 },
	{ 32, "analysis.go_back_n", 1 },		{ 32, "analysis.nak_frame", 31 },
	{ 36, "analysis.ack_rtt", 508000 },	{ 37, "analysis.spurious_retransmission", 1 },
	{ 37, "analysis.rto", 20513000 },	{ 37, "analysis.rto_frame", 35 },
	{ 38, "analysis.duplicate_ack", 1 },	{ 38, "analysis.duplicate", 0 },
	{ 38, "analysis.ghost_ack", 0 },
};

/* flows-lossy.pcap: a NAK crossed by new PSNs, duplicates, reordering, a
 * resend lost too, READ replays, an RNR NAK and the network's copy. */
static const struct want lossy[] = {
	{ 6, "analysis.psn_gap", 0 },		{ 8, "analysis.seq_nak", 1 },
	{ 8, "analysis.nak_oos_frame", 6 },	{ 8, "analysis.nak_latency", 13000 },
	{ 8, "analysis.acks_frame", 5 },		{ 8, "analysis.ack_rtt", 18000 },
	{ 8, "analysis.packets_in_flight", 3 },	{ 8, "analysis.bytes_in_flight", 192 },
	{ 9, "analysis.crossed_nak", 1 },	{ 10, "analysis.crossed_nak", 1 },
	{ 11, "analysis.go_back_n", 1 },		{ 11, "analysis.retransmission", 1 },
	{ 11, "analysis.crossed_nak", 0 },	{ 11, "analysis.rto", -1 },
	{ 11, "analysis.nak_to_resend", 55000 },	{ 11, "analysis.new_after_nak", 2 },
	{ 15, "analysis.go_back_n", 1 },		{ 16, "analysis.acks_frame", 15 },
	{ 16, "analysis.packets_in_flight", 0 },	{ 18, "analysis.duplicate", 1 },
	{ 18, "analysis.retransmission", 1 },	{ 18, "analysis.rto", -1 },
	{ 20, "analysis.duplicate", 1 },		{ 20, "analysis.duplicate_ack", 1 },
	{ 22, "analysis.psn_gap", 1 },		{ 23, "analysis.out_of_order", 1 },
	{ 23, "analysis.retransmission", 0 },	{ 27, "analysis.nak_oos_frame", 26 },
	{ 27, "analysis.nak_latency", 8000 },	{ 29, "analysis.nak_to_resend", 20010000 },
	{ 33, "analysis.read_response_time", 8000 }, { 35, "analysis.retransmission", 1 },
	{ 35, "analysis.rto", 20021000 },	{ 35, "analysis.rto_frame", 32 },
	{ 36, "analysis.duplicate_read_response", 1 }, { 40, "analysis.rto", 20013000 },
	{ 47, "analysis.rnr_retry", 1 },		{ 47, "analysis.duplicate", 1 },
	{ 47, "analysis.rnr_wait", 105000 },	{ 48, "analysis.rnr_wait", 2110000 },
	{ 48, "analysis.rnr_timer", 1280000 },	{ 48, "analysis.duplicate", 0 },
};

/* flows-errors.pcap: NAKs beyond the PSNs sent. */
static const struct want errors[] = {
	{ 14, "analysis.ghost_ack", 1 }, { 60, "analysis.ghost_ack", 1 }, { 9, "analysis.ghost_ack", 0 },
};

/* flows-congestion.pcap: 1074-byte WRITEs 10 us apart from 110 us, 4
 * marked CE; a CNP at 210 us; 5 WRITEs 100 us apart; a CNP at 766 us after
 * no mark; 2 WRITEs 200 us apart; the capture ends at 1274 us. */
static const struct want congestion[] = {
	{ 10, "analysis.ce", 1 },			{ 9, "analysis.ce", 0 },
	{ 13, "analysis.packets_in_flight", 10 },	{ 13, "analysis.bytes_in_flight", 10000 },
	{ 14, "analysis.cnp.ce_packets", 4 },		{ 14, "analysis.cnp.ce_frame", 13 },
	{ 14, "analysis.cnp.no_ce", 0 },		{ 14, "analysis.cnp.previous", -1 },
	/* 10 x 1074 bytes in the 100 us from the first WRITE */
	{ 14, "analysis.cnp.rate_before", 859200000 },
	/* 5 x 1074 bytes in the 556 us to the next CNP */
	{ 14, "analysis.cnp.rate_after", 77266187 },
	{ 15, "analysis.ack_rtt", 18000 },		{ 15, "analysis.acks_frame", 13 },
	{ 22, "analysis.cnp.no_ce", 1 },		{ 22, "analysis.cnp.ce_packets", 0 },
	{ 22, "analysis.cnp.previous", 14 },		{ 22, "analysis.cnp.interval", 556000 },
	/* 15 x 1074 bytes in the 656 us from the first WRITE */
	{ 22, "analysis.cnp.rate_before", 196463414 },
	/* 2 x 1074 bytes in the 508 us to the end of the capture */
	{ 22, "analysis.cnp.rate_after", 33826771 },
};

/* flows-mw.pcap: WRITEs through invalidated rkeys (SENDs with
 * Invalidate in frames 3, 9 and 15, acknowledged in 4, 10 and 17). */
static const struct want mw[] = {
	{ 5, "analysis.rkey.invalidated_in", 3 },	{ 5, "analysis.rkey.invalidation_ack", 4 },
	{ 6, "analysis.rkey.invalidated_in", -1 },	{ 12, "analysis.rkey.invalidated_in", 9 },
	/* the key of frame 9 stayed valid (frame 12 said so): not judged again */
	{ 13, "analysis.rkey.invalidated_in", -1 },	{ 14, "analysis.rkey.invalidated_in", -1 },
	{ 16, "analysis.rkey.invalidated_in", 15 },	{ 16, "analysis.rkey.invalidation_ack", -1 },
	{ 18, "analysis.rkey.invalidated_in", 15 },	{ 18, "analysis.rkey.invalidation_ack", 17 },
	/* the WRITE passed at 104 us, the invalidation's ACK at 112 us */
	{ 18, "analysis.rkey.ahead_of_invalidation_ack", 8000 },
	{ 21, "analysis.rkey.invalidated_in", -1 },
};

/* flows-placement.pcap: FLUSHes and an ATOMIC WRITE, each answered 8 us later. */
static const struct want placement[] = {
	{ 3, "analysis.flush_response_time", 8000 },	{ 3, "request_in", 2 },
	{ 3, "analysis.read_response_time", -1 },	{ 3, "analysis.acks_frame", 2 },
	{ 9, "analysis.flush_response_time", 8000 },	{ 11, "analysis.atomic_write_response_time", 8000 },
	{ 11, "analysis.flush_response_time", -1 },	{ 10, "analysis.bytes_in_flight", 8 },
	{ 11, "analysis.bytes_in_flight", 0 },
};

int main(void)
{
	check("flows-mw", sample_conv_mw, mw, sizeof mw / sizeof mw[0]);
	check("flows-placement", sample_conv_placement, placement, sizeof placement / sizeof placement[0]);
	check("flows-rc", sample_conv_rc, rc, sizeof rc / sizeof rc[0]);
	check("flows-lossy", sample_conv_lossy, lossy, sizeof lossy / sizeof lossy[0]);
	check("flows-errors", sample_conv_errors, errors, sizeof errors / sizeof errors[0]);
	check("flows-congestion", sample_conv_congestion, congestion, sizeof congestion / sizeof congestion[0]);
	/* Every flag is seen present and every value with an answer, but the
	 * request's link to its response (reported through answered()). */
	for (unsigned i = 0; i < ROCE_FLOW_FLAG_COUNT; i++)
		CHECK(covered_flag[i], "flag %s has no known-answer check", roce_flow_flag_info((enum roce_flow_flag)i)->abbrev);
	for (unsigned v = 0; v < ROCE_FLOW_V_COUNT; v++)
		CHECK(covered_value[v] || v == ROCE_FLOW_V_RESPONSE_IN, "value %s has no known-answer check",
		      roce_flow_value_info((enum roce_flow_value)v)->abbrev);
	return test_result("test_flow_values");
}
