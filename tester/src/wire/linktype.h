/*
 * Where the RoCEv2 packet starts in a captured frame, per pcap link type
 * (DLT_*): Ethernet, raw IP, IPv4, IPv6, Linux cooked captures.
 */
#ifndef ROCE_TESTER_LINKTYPE_H
#define ROCE_TESTER_LINKTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/roce.h"

/* Parses one captured frame of the given pcap link type (DLT_*). Returns
 * -1 when the link type is not one RoCEv2 can be carried on. */
int linktype_parse(int dlt, struct roce_pkt *p, const uint8_t *data, size_t caplen, size_t len,
		   unsigned flags);
bool linktype_supported(int dlt);

#endif
