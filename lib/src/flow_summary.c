/*
 * The per-QP summary (roce/flow.h): statistics gathered per direction and
 * written per QP pair, as text or JSON. `roce-tester lint --qp` and the
 * plugin's `tshark -z rocev2,qp` both print it, so that the two agree
 * line for line on the same capture.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow_internal.h"

#ifndef INET6_ADDRSTRLEN
#define INET6_ADDRSTRLEN 46
#endif

struct roce_flow_summary {
	struct roce_flow_stats *dir; /* by direction id - 1 */
	uint32_t n;
};

struct roce_flow_summary *roce_flow_summary_new(void)
{
	return calloc(1, sizeof(struct roce_flow_summary));
}

void roce_flow_summary_free(struct roce_flow_summary *s)
{
	if (!s)
		return;
	free(s->dir);
	free(s);
}

bool roce_flow_summary_add(struct roce_flow_summary *s, uint32_t dir_id, const struct roce_flow_sample *x)
{
	if (!dir_id)
		return true; /* not tracked */
	if (dir_id > s->n) {
		uint32_t n = s->n ? s->n : 64;
		while (n < dir_id)
			n *= 2;
		struct roce_flow_stats *d = realloc(s->dir, n * sizeof *d);
		if (!d)
			return false;
		memset(d + s->n, 0, (n - s->n) * sizeof *d);
		s->dir = d;
		s->n = n;
	}
	roce_flow_stats_add(&s->dir[dir_id - 1], x);
	return true;
}

bool roce_flow_summary_pair(const struct roce_flow_summary *s, const struct roce_flow_qp_pair *p,
			    struct roce_flow_stats *out)
{
	memset(out, 0, sizeof *out);
	if (p->ab_id && p->ab_id <= s->n)
		roce_flow_stats_merge(out, &s->dir[p->ab_id - 1]);
	if (p->ba_id && p->ba_id <= s->n)
		roce_flow_stats_merge(out, &s->dir[p->ba_id - 1]);
	return out->packets > 0;
}

/* An address as text, without the C library's networking headers (lib/
 * builds alone): dotted quad, or IPv6 groups with the longest zero run
 * shortened, as inet_ntop writes them. buf holds INET6_ADDRSTRLEN. */
static void addr_text(char *buf, uint8_t ipv, const uint8_t *a)
{
	static const char hex[] = "0123456789abcdef";
	size_t k = 0;
	if (ipv == 4) {
		for (int i = 0; i < 4; i++) {
			unsigned v = a[i];
			if (v >= 100)
				buf[k++] = (char)('0' + v / 100);
			if (v >= 10)
				buf[k++] = (char)('0' + v / 10 % 10);
			buf[k++] = (char)('0' + v % 10);
			if (i < 3)
				buf[k++] = '.';
		}
		buf[k] = 0;
		return;
	}
	unsigned g[8];
	for (int i = 0; i < 8; i++)
		g[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
	int best = -1, best_len = 1;
	for (int i = 0; i < 8;) {
		int j = i;
		while (j < 8 && !g[j])
			j++;
		if (j - i > best_len) {
			best = i;
			best_len = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			if (i == 0)
				buf[k++] = ':';
			buf[k++] = ':';
			i += best_len - 1;
			continue;
		}
		bool lead = true;
		for (int sh = 12; sh >= 0; sh -= 4) {
			unsigned d = (g[i] >> sh) & 0xF;
			if (lead && !d && sh)
				continue;
			lead = false;
			buf[k++] = hex[d];
		}
		if (i < 7)
			buf[k++] = ':';
	}
	buf[k] = 0;
}

static void qp_text(char *buf, size_t n, uint32_t qpn)
{
	if (qpn == ROCE_FLOW_QPN_UNKNOWN)
		snprintf(buf, n, "?");
	else
		snprintf(buf, n, "0x%06x", qpn);
}

struct writer {
	const struct roce_flow_summary *s;
	FILE *out;
	bool json;
	unsigned rows;
};

static double seconds(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void write_pair(void *arg, const struct roce_flow_qp_pair *p)
{
	struct writer *w = arg;
	struct roce_flow_stats st;
	if (!roce_flow_summary_pair(w->s, p, &st))
		return;
	char a[INET6_ADDRSTRLEN + 4], b[INET6_ADDRSTRLEN + 4], qa[12], qb[12];
	addr_text(a, p->ip_version, p->a);
	addr_text(b, p->ip_version, p->b);
	qp_text(qa, sizeof qa, p->qp_a);
	qp_text(qb, sizeof qb, p->qp_b);
	uint64_t avg = st.rtt_count ? st.rtt_sum_ns / st.rtt_count : 0;
	if (w->json) {
		fprintf(w->out,
			"%s\n  {\"a\": \"%s\", \"qp_a\": %s%s%s, \"b\": \"%s\", \"qp_b\": %s%s%s, \"packets\": %llu, "
			"\"bytes\": %llu, \"duration\": %.9f, \"retransmissions\": %u, \"spurious\": %u, "
			"\"psn_gaps\": %u, \"out_of_order\": %u, \"duplicates\": %u, \"naks\": %u, \"seq_naks\": %u, "
			"\"rnr_naks\": %u, \"rnr_retries\": %u, \"cnps\": %u, \"ce_marked\": %u, \"ack_rtts\": %u",
			w->rows ? "," : "", a, p->qp_a == ROCE_FLOW_QPN_UNKNOWN ? "" : "\"",
			p->qp_a == ROCE_FLOW_QPN_UNKNOWN ? "null" : qa, p->qp_a == ROCE_FLOW_QPN_UNKNOWN ? "" : "\"", b,
			"\"", qb, "\"", (unsigned long long)st.packets, (unsigned long long)st.bytes,
			seconds(st.last_ns - st.first_ns), st.retransmissions, st.spurious, st.gaps, st.out_of_order,
			st.duplicates, st.naks, st.seq_naks, st.rnr_naks, st.rnr_retries, st.cnps, st.ce_marked,
			st.rtt_count);
		if (st.rtt_count)
			fprintf(w->out, ", \"ack_rtt_min\": %.9f, \"ack_rtt_avg\": %.9f, \"ack_rtt_max\": %.9f",
				seconds(st.rtt_min_ns), seconds(avg), seconds(st.rtt_max_ns));
		if (p->n_xrc_srqs) {
			fputs(", \"xrc_srqs\": [", w->out);
			for (unsigned i = 0; i < p->n_xrc_srqs; i++)
				fprintf(w->out, "%s\"0x%06x\"", i ? ", " : "", p->xrc_srqns[i]);
			fprintf(w->out, "], \"xrc_srqs_more\": %s", p->xrc_srqs_more ? "true" : "false");
		}
		fprintf(w->out, ", \"version\": %d}", p->rocev1 ? 1 : 2);
	} else {
		/* A RoCE v1 pair's ends are GIDs, marked: the same numbers over
		 * RoCEv2 are another pair. */
		if (p->rocev1) {
			strcat(a, "/v1");
			strcat(b, "/v1");
		}
		fprintf(w->out, "%-26s %-8s %-26s %-8s %8llu %10llu %10.6f %5u %5u %5u %5u %5u %5u  ", a, qa, b, qb,
			(unsigned long long)st.packets, (unsigned long long)st.bytes, seconds(st.last_ns - st.first_ns),
			st.retransmissions, st.spurious, st.naks, st.rnr_naks, st.cnps, st.ce_marked);
		if (st.rtt_count)
			fprintf(w->out, "%.6f/%.6f/%.6f\n", seconds(st.rtt_min_ns), seconds(avg), seconds(st.rtt_max_ns));
		else
			fputs("-\n", w->out);
		if (p->n_xrc_srqs) {
			fprintf(w->out, "  XRC SRQs of QP 0x%06x:", p->xrc_target_qpn);
			for (unsigned i = 0; i < p->n_xrc_srqs; i++)
				fprintf(w->out, " 0x%06x", p->xrc_srqns[i]);
			fputs(p->xrc_srqs_more ? " and more\n" : "\n", w->out);
		}
	}
	w->rows++;
}

void roce_flow_summary_write(const struct roce_flow_summary *s, const struct roce_flow_env *env, FILE *out,
			     bool json)
{
	struct writer w = { s, out, json, 0 };
	if (json) {
		fputs("[", out);
	} else {
		fprintf(out, "QP pairs (A sends to B's QP, B to A's; ? = not seen paired)\n");
		fprintf(out, "%-26s %-8s %-26s %-8s %8s %10s %10s %5s %5s %5s %5s %5s %5s  %s\n", "A", "QP A", "B", "QP B",
			"Packets", "Bytes", "Duration", "Retx", "Spur", "NAKs", "RNR", "CNPs", "CE",
			"ACK RTT min/avg/max (s)");
	}
	roce_flow_qp_pairs(env, write_pair, &w);
	if (json)
		fputs(w.rows ? "\n]\n" : "]\n", out);
}
