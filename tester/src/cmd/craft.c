/*
 * `roce-tester craft`: builds one RoCEv2 packet from the command line, with
 * any header field set to any value, and writes it to a pcap or prints it;
 * or, with --samples, writes the project's sample captures.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "samples.h"

static void usage(FILE *out)
{
	fputs("usage: roce-tester craft [OPTIONS] [-o FILE.pcap]\n"
	      "       roce-tester craft --samples DIR\n"
	      "\n"
	      "Builds one RoCEv2 packet: a conforming packet of the given opcode, then the\n"
	      "changes asked for. Lengths, checksums, pad and ICRC are computed unless a\n"
	      "--set names them. Without -o, prints the frame in hex and what libroce\n"
	      "finds in it.\n"
	      "\n"
	      "Options:\n"
	      "  --opcode OP          opcode by name (\"RC SEND Only\", rc-send-only) or number\n"
	      "                       (default: RC SEND Only)\n"
	      "  --ip 4|6             IP version (default 4)\n"
	      "  --src ADDR, --dst ADDR\n"
	      "                       IP addresses (default 198.18.0.1 to 198.18.0.2, or\n"
	      "                       2001:db8::1 to 2001:db8::2)\n"
	      "  --vlan TCI           add an 802.1Q tag (twice: 802.1ad outer, 802.1Q inner)\n"
	      "  --payload-len N      N bytes of pattern payload (default: 16, or what the\n"
	      "                       opcode carries)\n"
	      "  --payload HEX        these payload bytes\n"
	      "  --set FIELD=VALUE    set a header field, e.g. bth.psn=5, ipv4.ttl=1,\n"
	      "                       aeth.syndrome=0x60, udp.len=30 (repeatable; see --fields)\n"
	      "  --icrc VALUE         write this ICRC (as the CRC value, sent LSB first)\n"
	      "  --icrc-mistake NAME[+NAME...]\n"
	      "                       write the ICRC an implementation making these mistakes\n"
	      "                       together would send (see --fields for the names)\n"
	      "  -o, --output FILE    write the frame to a new pcap file\n"
	      "  --samples DIR        write the sample captures and .expect files into DIR\n"
	      "  --fields             list the field names, opcodes and ICRC mistakes\n"
	      "  -h, --help           this help\n",
	      out);
}

static void list_fields(void)
{
	printf("Fields (--set NAME=VALUE):\n");
	for (unsigned f = 0; f < ROCE_F_COUNT; f++) {
		const struct roce_field_info *fi = roce_field_info((enum roce_field)f);
		if (!fi->mask)
			continue;
		printf("  %s.%-12s %s\n", roce_hdr_info(fi->hdr)->abbrev, fi->abbrev, fi->label);
	}
	printf("\nOpcodes (--opcode):\n");
	for (unsigned op = 0; op < 256; op++)
		if (roce_opcode((uint8_t)op)->name)
			printf("  0x%02x  %s\n", op, roce_opcode((uint8_t)op)->name);
	printf("\nICRC mistakes (--icrc-mistake):\n");
	for (unsigned m = ROCE_ICRC_MISTAKE_NONE + 1; m < ROCE_ICRC_MISTAKE_COUNT; m++)
		printf("  %-20s %s\n", roce_icrc_mistake_name((enum roce_icrc_mistake)m),
		       roce_icrc_mistake_text((enum roce_icrc_mistake)m));
}

#define MAX_SETS 64

struct craft {
	int opcode, ip_version;
	const char *src, *dst;
	unsigned n_vlan;
	uint16_t vlan[ROCE_MAX_VLANS];
	size_t payload_len; /* SIZE_MAX: what the opcode normally carries */
	uint8_t payload[SAMPLE_FRAME_MAX];
	bool payload_given;
	const char *sets[MAX_SETS];
	unsigned n_sets;
	bool icrc_given;
	uint32_t icrc;
	uint32_t mistakes; /* ROCE_ICRC_BIT per mistake */
	const char *mistake_names;
	const char *output;
};

static int fail(const char *fmt, const char *arg)
{
	fputs("roce-tester craft: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

static int apply_set(struct roce_desc *d, const char *assign)
{
	const char *eq = strchr(assign, '=');
	if (!eq)
		return fail("--set %s: expected FIELD=VALUE", assign);
	char name[64];
	size_t n = (size_t)(eq - assign);
	if (n >= sizeof name)
		return fail("--set %s: field name too long", assign);
	memcpy(name, assign, n);
	name[n] = '\0';
	enum roce_field f = roce_field_by_name(name);
	if (f == ROCE_F_COUNT)
		return fail("--set %s: no such field (see --fields)", assign);
	uint64_t v;
	if (parse_u64(eq + 1, &v) != 0)
		return fail("--set %s: the value is not an unsigned number", assign);
	const struct roce_field_info *fi = roce_field_info(f);
	if (fi->mask && v > fi->mask >> fi->shift)
		return fail("--set %s: the value does not fit in the field", assign);
	if (roce_desc_set(d, f, v) != 0)
		return fail("--set %s: this packet has no such header (check --ip)", assign);
	return 0;
}

static int set_address(struct roce_desc *d, const char *addr, bool source)
{
	uint8_t *slot = d->ip_version == 6 ? d->ip + (source ? 8 : 24) : d->ip + (source ? 12 : 16);
	if (inet_pton(d->ip_version == 6 ? AF_INET6 : AF_INET, addr, slot) != 1)
		return fail("%s: not an address of the chosen IP version", addr);
	return 0;
}

static int build_frame(struct craft *c, uint8_t *frame, size_t *len)
{
	struct roce_desc d;
	if (c->payload_len == SIZE_MAX)
		c->payload_len = sample_payload_len((uint8_t)c->opcode, 0, 16);
	if (!c->payload_given)
		sample_fill_pattern(c->payload, c->payload_len);
	sample_desc(&d, (uint8_t)c->opcode, c->ip_version, c->payload, c->payload_len);
	d.n_vlan = c->n_vlan;
	for (unsigned i = 0; i < c->n_vlan; i++) {
		d.vlan_tpid[i] = c->n_vlan == 2 && i == 0 ? ROCE_ETHERTYPE_QINQ : ROCE_ETHERTYPE_VLAN;
		d.vlan_tci[i] = c->vlan[i];
	}
	if ((c->src && set_address(&d, c->src, true)) || (c->dst && set_address(&d, c->dst, false)))
		return 2;
	for (unsigned i = 0; i < c->n_sets; i++)
		if (apply_set(&d, c->sets[i]) != 0)
			return 2;
	if (c->icrc_given) {
		d.ovr |= ROCE_OVR_ICRC;
		d.icrc = c->icrc;
	}
	long n = roce_build_frame(&d, frame, SAMPLE_FRAME_MAX);
	if (n == -1)
		return fail("%s", "the packet does not fit in a 9216-byte frame");
	if (n < 0)
		return fail("%s", "the packet description is inconsistent");
	*len = (size_t)n;
	if (c->mistakes) {
		struct roce_pkt p;
		uint32_t v;
		roce_parse_frame(&p, frame, *len, *len, ROCE_PARSE_ANY_PORT);
		if (roce_icrc_mistaken_set(&p, c->mistakes, &v) != 0)
			return fail("--icrc-mistake %s: cannot apply to this packet", c->mistake_names);
		roce_le32_store(frame + p.icrc_off, v);
	}
	return 0;
}

static int write_pcap(const char *path, const uint8_t *frame, size_t len)
{
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	if (!pd)
		return fail("%s: cannot open a pcap writer", path);
	pcap_dumper_t *dump = pcap_dump_open(pd, path);
	if (!dump) {
		fprintf(stderr, "roce-tester craft: %s\n", pcap_geterr(pd));
		pcap_close(pd);
		return 2;
	}
	struct pcap_pkthdr h = { { 0, 0 }, (bpf_u_int32)len, (bpf_u_int32)len };
	pcap_dump((u_char *)dump, &h, frame);
	int bad = pcap_dump_flush(dump) != 0;
	pcap_dump_close(dump);
	pcap_close(pd);
	return bad ? fail("%s: write failed", path) : 0;
}

static void print_frame(const uint8_t *frame, size_t len)
{
	for (size_t i = 0; i < len; i++)
		printf("%02x%s", frame[i], (i % 32 == 31 || i + 1 == len) ? "\n" : "");
	struct roce_pkt p;
	roce_parse_frame(&p, frame, len, len, ROCE_PARSE_ANY_PORT);
	char line[160];
	if (roce_pkt_has(&p, ROCE_H_BTH)) {
		roce_pkt_summary(&p, line, sizeof line);
		printf("%s, %zu bytes\n", line, len);
	}
	struct roce_check_opts opts = { ROCE_CHK_ICRC, 0 };
	if (print_findings(stdout, &p, &opts, "  ", NULL).total == 0)
		printf("  no findings\n");
}

int cmd_craft(int argc, char **argv)
{
	enum { O_OPCODE = 256, O_IP, O_SRC, O_DST, O_VLAN, O_PLEN, O_PAYLOAD, O_SET, O_ICRC, O_MISTAKE,
	       O_SAMPLES, O_FIELDS };
	static const struct option longopts[] = {
		{ "opcode", required_argument, NULL, O_OPCODE },
		{ "ip", required_argument, NULL, O_IP },
		{ "src", required_argument, NULL, O_SRC },
		{ "dst", required_argument, NULL, O_DST },
		{ "vlan", required_argument, NULL, O_VLAN },
		{ "payload-len", required_argument, NULL, O_PLEN },
		{ "payload", required_argument, NULL, O_PAYLOAD },
		{ "set", required_argument, NULL, O_SET },
		{ "icrc", required_argument, NULL, O_ICRC },
		{ "icrc-mistake", required_argument, NULL, O_MISTAKE },
		{ "output", required_argument, NULL, 'o' },
		{ "samples", required_argument, NULL, O_SAMPLES },
		{ "fields", no_argument, NULL, O_FIELDS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct craft c;
	memset(&c, 0, sizeof c);
	c.opcode = ROCE_OP_RC_SEND_ONLY;
	c.ip_version = 4;
	c.payload_len = SIZE_MAX;
	const char *samples = NULL;
	uint64_t v;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case O_OPCODE:
			c.opcode = roce_opcode_by_name(optarg);
			if (c.opcode < 0)
				return fail("--opcode %s: no such opcode (see --fields)", optarg);
			break;
		case O_IP:
			if (strcmp(optarg, "4") && strcmp(optarg, "6"))
				return fail("--ip %s: must be 4 or 6", optarg);
			c.ip_version = atoi(optarg);
			break;
		case O_SRC: c.src = optarg; break;
		case O_DST: c.dst = optarg; break;
		case O_VLAN:
			if (c.n_vlan == ROCE_MAX_VLANS)
				return fail("--vlan %s: at most two tags", optarg);
			if (parse_u64(optarg, &v) || v > 0xFFFF)
				return fail("--vlan %s: a TCI is a 16-bit number", optarg);
			c.vlan[c.n_vlan++] = (uint16_t)v;
			break;
		case O_PLEN:
			if (parse_u64(optarg, &v) || v > 9000)
				return fail("--payload-len %s: 0 to 9000 bytes", optarg);
			c.payload_len = (size_t)v;
			c.payload_given = false;
			break;
		case O_PAYLOAD:
			c.payload_len = sample_unhex(optarg, c.payload, 9000);
			if (!c.payload_len && optarg[0])
				return fail("--payload %s: not hex bytes", optarg);
			c.payload_given = true;
			break;
		case O_SET:
			if (c.n_sets == MAX_SETS)
				return fail("--set %s: too many --set options", optarg);
			c.sets[c.n_sets++] = optarg;
			break;
		case O_ICRC:
			if (parse_u64(optarg, &v) || v > 0xFFFFFFFFu)
				return fail("--icrc %s: a 32-bit number", optarg);
			c.icrc = (uint32_t)v;
			c.icrc_given = true;
			break;
		case O_MISTAKE:
			if (roce_icrc_mistakes_parse(optarg, &c.mistakes) != 0 || !c.mistakes)
				return fail("--icrc-mistake %s: unknown (see --fields)", optarg);
			c.mistake_names = optarg;
			break;
		case 'o': c.output = optarg; break;
		case O_SAMPLES: samples = optarg; break;
		case O_FIELDS: list_fields(); return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		return fail("unexpected argument '%s'", argv[optind]);
	if (samples)
		return craft_samples(samples);

	uint8_t frame[SAMPLE_FRAME_MAX];
	size_t len = 0;
	int rc = build_frame(&c, frame, &len);
	if (rc)
		return rc;
	if (c.output)
		return write_pcap(c.output, frame, len);
	print_frame(frame, len);
	return 0;
}
