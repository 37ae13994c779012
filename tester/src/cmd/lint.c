/*
 * `roce-tester lint`: reads pcap files and judges every RoCE packet (RoCEv2,
 * and RoCE v1 unless told not to) as the Wireshark plugin does, with libroce alone: the stateless checks, ICRC
 * included, and the per-QP flow analysis (roce/flow.h) over each file in
 * capture order. Prints the findings per frame and a summary per rule.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "capture_read.h"
#include "commands.h"
#include "linktype.h"

static void usage(FILE *out)
{
	fputs("usage: roce-tester lint [OPTIONS] FILE.pcap...\n"
	      "\n"
	      "Judges every RoCE packet in the captures (RoCEv2, and RoCE v1: Ethertype\n"
	      "0x8915, a GRH and the IBA transport) as the Wireshark plugin does:\n"
	      "the stateless rules (headers, lengths, pad, reserved bits, CNP format,\n"
	      "ICRC) and, per QP, the flow rules (PSN order, go-back-N after a NAK,\n"
	      "READ response segmentation, RNR waits, ...), then prints the findings\n"
	      "per frame and a count per rule. Exit status: 0 no errors, 1 errors\n"
	      "found, 2 bad usage or unreadable file.\n"
	      "\n"
	      "Options:\n"
	      "  --pmtu N      the path MTU (256..4096), to check payload sizes exactly\n"
	      "                (otherwise learnt per QP, as the plugin does)\n"
	      "  --sender      the capture was taken at the sender: CE marks are errors\n"
	      "  --any-port    decode every UDP port as RoCEv2, not only 4791\n"
	      "  --no-rocev1   leave RoCE v1 frames out (counted as other frames)\n"
	      "  --rocev1      RoCE v1 frames are judged (the default; kept for old scripts)\n"
	      "  --no-flow     judge each packet on its own, without the per-QP analysis\n"
	      "  --rd-range auto|rd|dc\n"
	      "                what the RD opcodes (0x40-0x5F) are, as the plugin's\n"
	      "                preference rocev2.rd_range: auto (the default) takes a\n"
	      "                packet as NVIDIA's Dynamically Connected transport (DC)\n"
	      "                when, read as RD, it looks like DC (its RDETH reserved\n"
	      "                byte set, and a clean parse as DC), else as RD; rd takes\n"
	      "                them all as RD and says which look like DC; dc as DC\n"
	      "  --rd-as-dc    the same as --rd-range dc\n"
	      "  --all         also report frames that are not RoCEv2 at all\n"
	      "  --tsv         one line per finding: frame, code, rule, severity, text\n"
	      "  --qp          after each file, the per-QP summary: one row per QP pair\n"
	      "                (packets, bytes, duration, retransmissions, NAKs, RNR NAKs,\n"
	      "                CNPs, CE marks, ACK RTT min/avg/max), as tshark -z rocev2,qp\n"
	      "  --json        the per-QP summary as JSON (implies --qp)\n"
	      "  -q, --quiet   print only the summary\n"
	      "  -h, --help    this help\n",
	      out);
}

/* An IPv6 datagram whose extension headers lead to UDP port 4791: RoCEv2
 * to a receiver that walks them, as Wireshark does (and the plugin then
 * reports the extension headers, CA17-16). */
static bool ipv6_ext_to_roce(const struct roce_pkt *p, unsigned pflags)
{
	if (p->err != ROCE_E_IPV6_NEXTHDR || !roce_pkt_has(p, ROCE_H_IPV6))
		return false;
	uint32_t off = p->hdr_off[ROCE_H_IPV6] + ROCE_IPV6_LEN;
	uint8_t next = (uint8_t)roce_ipv6_nexthdr(roce_pkt_hdr(p, ROCE_H_IPV6));
	for (int depth = 0; depth < 8; depth++) {
		if (next == 17)
			return (uint64_t)off + ROCE_UDP_LEN <= p->caplen &&
			       ((pflags & ROCE_PARSE_ANY_PORT) || roce_udp_dport(p->buf + off) == ROCE_UDP_PORT);
		if ((uint64_t)off + 2 > p->caplen)
			return false;
		uint32_t len;
		switch (next) {
		case 0: case 43: case 60: case 135: case 139: case 140: /* length in 8-byte units, less one */
			len = (p->buf[off + 1] + 1u) * 8;
			break;
		case 44: /* fragment */
			len = 8;
			break;
		case 51: /* authentication: in 4-byte units, less two */
			len = (p->buf[off + 1] + 2u) * 4;
			break;
		default:
			return false;
		}
		next = p->buf[off];
		off += len;
	}
	return false;
}

/* Parse errors that only mean "this frame is some other protocol". */
static bool not_roce(const struct roce_pkt *p, unsigned pflags)
{
	enum roce_code e = p->err;
	return (e == ROCE_E_ETHERTYPE || e == ROCE_E_ROCEV1 || e == ROCE_E_IPV4_PROTO ||
		e == ROCE_E_IPV6_NEXTHDR || e == ROCE_E_UDP_DPORT) &&
	       !ipv6_ext_to_roce(p, pflags);
}

#define RD_RANGE_FLAGS (ROCE_PARSE_RD_AUTO | ROCE_PARSE_RD_AS_DC)

struct lint_opts {
	struct roce_check_opts check;
	unsigned pflags;
	bool all, quiet, flow, tsv;
	bool qp, json; /* the per-QP summary after each file, as text or JSON */
};

struct lint_totals {
	size_t frames, roce, other, with_findings, errors, open_naks;
	size_t looks_dc; /* RD frames that look like NVIDIA DC (roce_pkt_looks_like_dc) */
	size_t per_rule[ROCE_RULE_COUNT];
};

static void *record(void *table, const void *key, size_t klen, size_t size)
{
	return roce_flow_table_record(table, key, klen, size);
}

/* The flow analysis of one packet, as the plugin feeds it. */
static bool analyse(const struct roce_flow_env *env, const struct roce_pkt *p, uint32_t frame, uint64_t ts_ns,
		    unsigned pmtu, uint32_t wire_len, struct roce_flow_result *r)
{
	struct roce_flow_input in = { .frame = frame, .ts_ns = ts_ns, .pmtu = pmtu, .wire_len = wire_len };
	if (!roce_flow_input_from(&in, p))
		return false;
	roce_flow_packet(env, &in, r);
	return true;
}

/* The Info column's tags, as the plugin writes them. */
static void flow_tags(char *buf, size_t n, const struct roce_flow_result *r)
{
	const char *tag = r->cls == ROCE_FLOW_GAP		? " [PSN gap]"
			  : r->cls == ROCE_FLOW_RETRANSMISSION ? " [Retransmission]"
			  : r->cls == ROCE_FLOW_OUT_OF_ORDER   ? " [Out-of-order]"
							       : "";
	int k = snprintf(buf, n, "%s", tag);
	if (r->read_count && k >= 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, " [READ response %u/%u]", r->read_index, r->read_count);
}

static void print_tsv(uint32_t frame, const struct roce_pkt *p, const struct roce_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		const struct roce_rule_info *ri = roce_rule(ci->rule);
		char msg[256], extra[768];
		roce_finding_format(&f[i], msg, sizeof msg);
		roce_finding_context(p, &f[i], extra, sizeof extra);
		printf("%u\t%s\t%s\t%s\t%s%s\n", frame, ci->name, ri ? ri->id : "-", roce_severity_name(ci->severity),
		       msg, extra);
	}
}

struct end_ctx {
	const struct lint_opts *o;
	struct lint_totals *t;
};

/* A NAK whose PSN was never seen resent: not a finding of any packet (the
 * capture may have ended, the resends been lost before the capture
 * point), said after the packets. */
static void open_nak(void *arg, const struct roce_flow_open_nak *o)
{
	struct end_ctx *e = arg;
	e->t->open_naks++;
	if (e->o->quiet)
		return;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int af = o->ip_version == 6 ? AF_INET6 : AF_INET;
	inet_ntop(af, o->src, src, sizeof src);
	inet_ntop(af, o->dst, dst, sizeof dst);
	printf("%s  frame %u: %sNAK PSN Sequence Error for PSN %u (%s to QP 0x%06x at %s) never answered by a resend "
	       "in the capture; the requester sent %u packets in the %.6f s after it%s\n",
	       e->o->tsv ? "#" : "", o->nak_frame, o->rocev1 ? "RoCE v1 " : "", o->nak_psn, src, o->dest_qpn, dst,
	       o->packets_after, (double)o->after_ns / 1e9,
	       o->clean ? " on a path that showed no loss before the capture point"
			: "; the path lost packets before the capture point, which may have hidden it");
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static int lint_file(const char *path, const struct lint_opts *o, struct lint_totals *t)
{
	char err[PCAP_ERRBUF_SIZE + 256];
	struct capture_read *pc = capture_read_open(path, err, sizeof err);
	if (!pc) {
		fprintf(stderr, "roce-tester lint: %s\n", err);
		return -1;
	}
	int dlt = capture_read_datalink(pc);
	if (!linktype_supported(dlt)) {
		fprintf(stderr, "roce-tester lint: %s: link type %s cannot carry RoCEv2\n", path,
			pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "?");
		capture_read_close(pc);
		return -1;
	}
	struct roce_flow_table *table = roce_flow_table_new();
	if (!table) {
		fprintf(stderr, "roce-tester lint: out of memory\n");
		capture_read_close(pc);
		return -1;
	}
	const struct roce_flow_env env = { .ctx = table, .record = record };
	struct roce_flow_summary *summary = o->qp && o->flow ? roce_flow_summary_new() : NULL;
	if (o->qp && o->flow && !summary) {
		fprintf(stderr, "roce-tester lint: out of memory\n");
		roce_flow_table_free(table);
		capture_read_close(pc);
		return -1;
	}
	if (o->tsv)
		printf("# %s\n", path);
	else if (!o->quiet)
		printf("%s\n", path);
	struct capture_frame h;
	uint32_t frame = 0;
	int rc;
	while ((rc = capture_read_next(pc, &h)) == 1) {
		frame++;
		t->frames++;
		struct roce_pkt p;
		linktype_parse(dlt, &p, h.data, h.caplen, h.len, o->pflags);
		if (not_roce(&p, o->pflags) && !o->all) {
			t->other++;
			continue;
		}
		t->roce++;
		/* The analysis first: the path MTU it knows drives the payload checks. */
		struct roce_flow_result r;
		uint64_t ts = h.ts_ns;
		bool analysed = o->flow && analyse(&env, &p, frame, ts, o->check.pmtu, h.len, &r);
		if (analysed && summary) {
			struct roce_flow_input in = { .pkt = &p, .ts_ns = ts, .wire_len = h.len };
			struct roce_flow_sample x;
			roce_flow_sample_of(&x, &in, &r);
			roce_flow_summary_add(summary, r.dir_id, &x);
		}
		struct roce_check_opts co = o->check;
		if (!co.pmtu && analysed)
			co.pmtu = r.pmtu;
		struct roce_finding f[64 + ROCE_FLOW_MAX_FINDINGS];
		size_t n = roce_check(&p, &co, f, 64);
		if (n > 64)
			n = 64;
		for (unsigned i = 0; analysed && i < r.n_findings; i++)
			f[n++] = r.findings[i];

		if (o->tsv) {
			print_tsv(frame, &p, f, n);
		} else if (!o->quiet) {
			char line[160], tags[64] = "";
			if (roce_pkt_has(&p, ROCE_H_BTH))
				roce_pkt_summary(&p, line, sizeof line);
			else
				snprintf(line, sizeof line, "(no BTH)");
			if (analysed)
				flow_tags(tags, sizeof tags, &r);
			printf("  frame %u: %s%s\n", frame, line, tags);
			if (analysed && r.nak_frame)
				printf("    resend for the NAK in frame %u, %.6f s after it; %u new PSNs crossed the NAK\n",
				       r.nak_frame, (double)r.nak_to_resend_ns / 1e9, r.new_after_nak);
		}
		struct finding_counts fc = print_finding_list(o->quiet || o->tsv ? NULL : stdout, &p, f, n, "    ",
							      t->per_rule);
		t->errors += fc.errors;
		t->with_findings += fc.total > 0;
		if (roce_pkt_looks_like_dc(&p)) {
			t->looks_dc++;
			if (!o->quiet)
				printf("%s    looks like NVIDIA DC, not RD: run with --rd-range auto or dc if the capture holds DC\n",
				       o->tsv ? "#" : "");
		}
	}
	if (rc < 0)
		fprintf(stderr, "roce-tester lint: %s: frame %u: %s\n", path, frame + 1, capture_read_error(pc));
	else if (o->flow) {
		struct end_ctx e = { o, t };
		roce_flow_end(&env, open_nak, &e);
	}
	if (summary && rc >= 0) {
		if (o->json) {
			fputs("{\"file\": ", stdout);
			json_string(stdout, path);
			fputs(", \"qp_pairs\": ", stdout);
		} else {
			printf("\n");
		}
		roce_flow_summary_write(summary, &env, stdout, o->json);
		if (o->json)
			fputs("}\n", stdout);
	}
	roce_flow_summary_free(summary);
	roce_flow_table_free(table);
	capture_read_close(pc);
	return rc < 0 ? -1 : 0;
}

int cmd_lint(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pmtu", required_argument, NULL, 'm' }, { "sender", no_argument, NULL, 's' },
		{ "any-port", no_argument, NULL, 'p' },   { "all", no_argument, NULL, 'a' },
		{ "quiet", no_argument, NULL, 'q' },      { "help", no_argument, NULL, 'h' },
		{ "rocev1", no_argument, NULL, '1' },     { "no-flow", no_argument, NULL, 'F' },
		{ "tsv", no_argument, NULL, 't' },        { "qp", no_argument, NULL, 'Q' },
		{ "json", no_argument, NULL, 'J' },       { "no-rocev1", no_argument, NULL, '0' },
		{ "rd-as-dc", no_argument, NULL, 'D' },   { "rd-range", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	/* The RD range decided per packet by default, as the plugin does. */
	struct lint_opts o = { { ROCE_CHK_ICRC, 0 }, ROCE_PARSE_ROCEV1 | ROCE_PARSE_RD_AUTO, false, false, true, false, false,
			       false };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096)) {
				fprintf(stderr, "roce-tester lint: --pmtu %s: not one of 256, 512, 1024, 2048, 4096\n",
					optarg);
				return 2;
			}
			o.check.pmtu = (unsigned)v;
			break;
		}
		case 's': o.check.flags |= ROCE_CHK_SENDER; break;
		case 'p': o.pflags |= ROCE_PARSE_ANY_PORT; break;
		case '1': o.pflags |= ROCE_PARSE_ROCEV1; break; /* the default since RoCE v1 is judged */
		case '0': o.pflags &= ~ROCE_PARSE_ROCEV1; break;
		case 'D': o.pflags = (o.pflags & ~RD_RANGE_FLAGS) | ROCE_PARSE_RD_AS_DC; break;
		case 'R':
			if (!strcmp(optarg, "auto") || !strcmp(optarg, "rd") || !strcmp(optarg, "dc")) {
				o.pflags = (o.pflags & ~RD_RANGE_FLAGS) |
					   (!strcmp(optarg, "auto") ? ROCE_PARSE_RD_AUTO
					    : !strcmp(optarg, "dc") ? ROCE_PARSE_RD_AS_DC : 0);
				break;
			}
			fprintf(stderr, "roce-tester lint: --rd-range %s: not one of auto, rd, dc\n", optarg);
			return 2;
		case 'a': o.all = true; break;
		case 'q': o.quiet = true; break;
		case 'F': o.flow = false; break;
		case 't': o.tsv = true; break;
		case 'Q': o.qp = true; break;
		case 'J': o.qp = o.json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "roce-tester lint: no capture files given\n");
		usage(stderr);
		return 2;
	}

	struct lint_totals t;
	memset(&t, 0, sizeof t);
	int status = 0;
	for (int i = optind; i < argc; i++)
		if (lint_file(argv[i], &o, &t) != 0)
			status = 2;

	FILE *sum = o.tsv || o.json ? stderr : stdout;
	fprintf(sum, "\n%zu frames: %zu RoCE%s, %zu other; %zu with findings, %zu errors\n", t.frames, t.roce,
		(o.pflags & ROCE_PARSE_ROCEV1) ? " (v1 and v2)" : "v2", t.other, t.with_findings, t.errors);
	for (size_t r = 0; r < ROCE_RULE_COUNT; r++) {
		if (!t.per_rule[r])
			continue;
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		fprintf(sum, "  %6zu  %-20s %s\n", t.per_rule[r], ri ? ri->id : "(capture)",
			ri ? ri->title : "frames cut short by the capture");
	}
	if (t.looks_dc)
		fprintf(sum, "  %zu RD frame%s look%s like NVIDIA DC: with --rd-range auto or dc they are taken as DC\n",
			t.looks_dc, t.looks_dc == 1 ? "" : "s", t.looks_dc == 1 ? "s" : "");
	if (t.open_naks)
		fprintf(sum, "  %zu NAK%s never answered by a resend in the capture (listed after the frames)\n",
			t.open_naks, t.open_naks == 1 ? "" : "s");
	if (status)
		return status;
	return t.errors ? 1 : 0;
}
