/*
 * The DUT's console stays quiet: a WRITE Only whose RETH says 0 bytes but
 * which carries 64 is refused on the wire (a NAK), and the DUT prints no
 * kernel-style warning while it refuses it (rxe 6.12 and 7.2 log one in
 * rxe_mr_copy: F1 in docs/rxe-results.md; the soft DUT's
 * warn-write-zero-dmalen prints it the same way). The console is the
 * agent's log, which scripts/netns-pair names in ROCE_AGENT_LOG.
 */
#include "dutpeer.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The console's lines from offset on that a kernel would print for a
 * warning or worse: their count. */
static unsigned console_reports(const char *path, long offset, char *first, size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	unsigned n = 0;
	char line[512];
	if (fseek(f, offset, SEEK_SET) == 0)
		while (fgets(line, sizeof line, f))
			if (strstr(line, "WARNING:") || strstr(line, "BUG:") || strstr(line, "Oops")) {
				if (!n++)
					snprintf(first, size, "%s", line);
			}
	fclose(f);
	return n;
}

bool sc_console(void)
{
	const char *log = getenv("ROCE_AGENT_LOG");
	REQUIRE(log, "ROCE_AGENT_LOG is not set: no console to watch (run under scripts/netns-pair --agent)");
	struct stat st;
	long before = stat(log, &st) == 0 ? (long)st.st_size : 0;
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	struct roce_desc d;
	desc(&q, &d, "RC RDMA WRITE Only", q.epsn);
	uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
	roce_reth_set_va(reth, q.addr);
	roce_reth_set_rkey(reth, q.rkey);
	roce_reth_set_dmalen(reth, 0);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(31);
	d.payload_len = 64;
	tx(&d);
	struct got g;
	if (!expect_aeth(&q, 300, ROCE_SYN_NAK, -1, q.epsn, &g))
		return false;
	sleep_ms(50); /* what the DUT printed while refusing it reaches the log */
	char first[512] = "";
	unsigned n = console_reports(log, before, first, sizeof first);
	REQUIRE(n == 0, "the DUT's console reported %u warning(s) while it refused a WRITE of DMA length 0 with 64 bytes: %s", n,
		first);
	return true;
}
