/*
 * `roce-tester lint`: reads pcap files and checks every RoCEv2 packet with
 * libroce's stateless checks, ICRC included; prints the findings per frame
 * and a summary per rule.
 */
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static void usage(FILE *out)
{
	fputs("usage: roce-tester lint [OPTIONS] FILE.pcap...\n"
	      "\n"
	      "Checks every RoCEv2 packet in the captures against the stateless rules\n"
	      "(headers, lengths, pad, reserved bits, CNP format, ICRC) and prints the\n"
	      "findings, then a count per rule. Exit status: 0 no errors, 1 errors\n"
	      "found, 2 bad usage or unreadable file.\n"
	      "\n"
	      "Options:\n"
	      "  --pmtu N      the path MTU (256..4096), to check payload sizes exactly\n"
	      "  --sender      the capture was taken at the sender: CE marks are errors\n"
	      "  --any-port    decode every UDP port as RoCEv2, not only 4791\n"
	      "  --rocev1      also check RoCE v1 frames (Ethertype 0x8915, dual-mode ports)\n"
	      "  --all         also report frames that are not RoCEv2 at all\n"
	      "  -q, --quiet   print only the summary\n"
	      "  -h, --help    this help\n",
	      out);
}

/* Parse errors that only mean "this frame is some other protocol". */
static bool not_roce(enum roce_code e)
{
	return e == ROCE_E_ETHERTYPE || e == ROCE_E_ROCEV1 || e == ROCE_E_IPV4_PROTO ||
	       e == ROCE_E_IPV6_NEXTHDR || e == ROCE_E_UDP_DPORT;
}

struct lint_totals {
	size_t frames, roce, other, with_findings, errors;
	size_t per_rule[ROCE_RULE_COUNT];
};

static int lint_file(const char *path, const struct roce_check_opts *opts, unsigned pflags, bool all,
		     bool quiet, struct lint_totals *t)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	if (!pc) {
		fprintf(stderr, "roce-tester lint: %s\n", err);
		return -1;
	}
	int dlt = pcap_datalink(pc);
	if (!linktype_supported(dlt)) {
		fprintf(stderr, "roce-tester lint: %s: link type %s cannot carry RoCEv2\n", path,
			pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "?");
		pcap_close(pc);
		return -1;
	}
	if (!quiet)
		printf("%s\n", path);
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t frame = 0;
	int rc;
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		frame++;
		t->frames++;
		struct roce_pkt p;
		linktype_parse(dlt, &p, data, h->caplen, h->len, pflags);
		if (not_roce(p.err) && !all) {
			t->other++;
			continue;
		}
		t->roce++;
		if (!quiet) {
			char line[160];
			if (roce_pkt_has(&p, ROCE_H_BTH))
				roce_pkt_summary(&p, line, sizeof line);
			else
				snprintf(line, sizeof line, "(no BTH)");
			printf("  frame %zu: %s\n", frame, line);
		}
		struct finding_counts fc = print_findings(quiet ? NULL : stdout, &p, opts, "    ", t->per_rule);
		t->errors += fc.errors;
		t->with_findings += fc.total > 0;
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "roce-tester lint: %s: frame %zu: %s\n", path, frame + 1, pcap_geterr(pc));
		pcap_close(pc);
		return -1;
	}
	pcap_close(pc);
	return 0;
}

int cmd_lint(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pmtu", required_argument, NULL, 'm' }, { "sender", no_argument, NULL, 's' },
		{ "any-port", no_argument, NULL, 'p' },   { "all", no_argument, NULL, 'a' },
		{ "quiet", no_argument, NULL, 'q' },      { "help", no_argument, NULL, 'h' },
		{ "rocev1", no_argument, NULL, '1' },
		{ NULL, 0, NULL, 0 },
	};
	struct roce_check_opts opts = { ROCE_CHK_ICRC, 0 };
	unsigned pflags = 0;
	bool all = false, quiet = false;
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
			opts.pmtu = (unsigned)v;
			break;
		}
		case 's': opts.flags |= ROCE_CHK_SENDER; break;
		case 'p': pflags |= ROCE_PARSE_ANY_PORT; break;
		case '1': pflags |= ROCE_PARSE_ROCEV1; break;
		case 'a': all = true; break;
		case 'q': quiet = true; break;
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
		if (lint_file(argv[i], &opts, pflags, all, quiet, &t) != 0)
			status = 2;

	printf("\n%zu frames: %zu RoCE%s, %zu other; %zu with findings, %zu errors\n", t.frames, t.roce,
	       (pflags & ROCE_PARSE_ROCEV1) ? " (v1 and v2)" : "v2", t.other, t.with_findings, t.errors);
	for (size_t r = 0; r < ROCE_RULE_COUNT; r++) {
		if (!t.per_rule[r])
			continue;
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		printf("  %6zu  %-20s %s\n", t.per_rule[r], ri ? ri->id : "(capture)",
		       ri ? ri->title : "frames cut short by the capture");
	}
	if (status)
		return status;
	return t.errors ? 1 : 0;
}
