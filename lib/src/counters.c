/* The counter table (see roce/counters.h and counters.def). */
#include "roce/counters.h"

#include <string.h>

static const struct roce_counter_info table[] = {
#define X(driver, name, meaning, scale, checked) { #driver, name, meaning, scale, checked },
#include "roce/counters.def"
#undef X
};

const char *roce_counter_meaning_name(enum roce_counter_meaning m)
{
	switch (m) {
	case ROCE_CNT_NONE: return NULL;
	case ROCE_CNT_BAD_ICRC_DROPPED: return "bad_icrc_dropped";
	case ROCE_CNT_DUPLICATE_REQUESTS: return "duplicate_requests";
	case ROCE_CNT_OUT_OF_SEQUENCE_RECEIVED: return "out_of_sequence_received";
	case ROCE_CNT_SEQ_ERR_NAKS_SENT: return "seq_err_naks_sent";
	case ROCE_CNT_SEQ_ERR_NAKS_RECEIVED: return "seq_err_naks_received";
	case ROCE_CNT_IMPLIED_NAKS: return "implied_naks";
	case ROCE_CNT_CNP_SENT: return "cnps_sent";
	case ROCE_CNT_CNP_RECEIVED: return "cnps_received";
	case ROCE_CNT_ECN_CE_RECEIVED: return "ecn_ce_received";
	case ROCE_CNT_RNR_NAKS_SENT: return "rnr_naks_sent";
	case ROCE_CNT_RNR_NAKS_RECEIVED: return "rnr_naks_received";
	case ROCE_CNT_RNR_RETRY_EXCEEDED: return "rnr_retry_exceeded";
	case ROCE_CNT_ACK_TIMEOUTS: return "ack_timeouts";
	case ROCE_CNT_RETRANSMISSIONS: return "retransmissions";
	case ROCE_CNT_PACKETS_SENT: return "packets_sent";
	case ROCE_CNT_PACKETS_RECEIVED: return "packets_received";
	case ROCE_CNT_BYTES_SENT: return "bytes_sent";
	case ROCE_CNT_BYTES_RECEIVED: return "bytes_received";
	case ROCE_CNT_MEANING_COUNT: break;
	}
	return NULL;
}

enum roce_counter_meaning roce_counter_meaning_by_name(const char *name)
{
	for (int m = ROCE_CNT_NONE + 1; name && m < ROCE_CNT_MEANING_COUNT; m++)
		if (!strcmp(roce_counter_meaning_name((enum roce_counter_meaning)m), name))
			return (enum roce_counter_meaning)m;
	return ROCE_CNT_NONE;
}

const char *roce_counter_meaning_text(enum roce_counter_meaning m)
{
	switch (m) {
	case ROCE_CNT_NONE: return "no known meaning";
	case ROCE_CNT_BAD_ICRC_DROPPED: return "packets dropped for a bad ICRC";
	case ROCE_CNT_DUPLICATE_REQUESTS: return "duplicate requests received (PSN behind the expected one)";
	case ROCE_CNT_OUT_OF_SEQUENCE_RECEIVED: return "requests received ahead of the expected PSN";
	case ROCE_CNT_SEQ_ERR_NAKS_SENT: return "NAK PSN Sequence Error sent";
	case ROCE_CNT_SEQ_ERR_NAKS_RECEIVED: return "NAK PSN Sequence Error received";
	case ROCE_CNT_IMPLIED_NAKS: return "implied NAKs (a response past an unanswered READ/atomic)";
	case ROCE_CNT_CNP_SENT: return "CNPs sent";
	case ROCE_CNT_CNP_RECEIVED: return "CNPs received and acted on";
	case ROCE_CNT_ECN_CE_RECEIVED: return "RoCE packets received CE-marked";
	case ROCE_CNT_RNR_NAKS_SENT: return "RNR NAKs sent";
	case ROCE_CNT_RNR_NAKS_RECEIVED: return "RNR NAKs received";
	case ROCE_CNT_RNR_RETRY_EXCEEDED: return "RNR retry counts run out";
	case ROCE_CNT_ACK_TIMEOUTS: return "local ACK timeouts";
	case ROCE_CNT_RETRANSMISSIONS: return "requester retransmissions (go-back-N restarts)";
	case ROCE_CNT_PACKETS_SENT: return "packets sent";
	case ROCE_CNT_PACKETS_RECEIVED: return "packets received";
	case ROCE_CNT_BYTES_SENT: return "bytes sent";
	case ROCE_CNT_BYTES_RECEIVED: return "bytes received";
	case ROCE_CNT_MEANING_COUNT: break;
	}
	return "?";
}

const struct roce_counter_info *roce_counter_table(size_t *n)
{
	*n = sizeof table / sizeof table[0];
	return table;
}

const struct roce_counter_info *roce_counter_lookup(const char *driver, const char *name)
{
	if (!driver || !name)
		return NULL;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcmp(table[i].driver, driver) && !strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

const char *roce_counter_driver(const char *backend, const char *device)
{
	if (backend && !strcmp(backend, "soft"))
		return "soft";
	if (!device)
		return NULL;
	static const struct {
		const char *prefix, *driver;
	} by_name[] = { { "rxe", "rxe" }, { "mlx5_", "mlx5" }, { "bnxt_re", "bnxt_re" }, { "irdma", "irdma" },
			{ "rdmap", "irdma" } };
	for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++)
		if (!strncmp(device, by_name[i].prefix, strlen(by_name[i].prefix)))
			return by_name[i].driver;
	return NULL;
}
