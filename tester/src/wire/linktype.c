/* Where the RoCEv2 packet starts in a captured frame, per pcap link type. */
#include <pcap/pcap.h>

#include "linktype.h"

bool linktype_supported(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
		return true;
	default:
		return false;
	}
}

/* Linux cooked captures carry the protocol (an Ethertype) in a fixed
 * header of hdr bytes, at proto_off. */
static int cooked(struct roce_pkt *p, const uint8_t *data, size_t caplen, size_t len, size_t hdr,
		  size_t proto_off, unsigned flags)
{
	if (caplen < hdr || len < hdr) {
		roce_parse_ip(p, data, 0, 0, flags);
		return 0;
	}
	uint16_t proto = (uint16_t)roce_be_load(data + proto_off, 2);
	roce_parse_ip(p, data + hdr, caplen - hdr, len - hdr, flags);
	if (p->err == ROCE_OK && proto != ROCE_ETHERTYPE_IPV4 && proto != ROCE_ETHERTYPE_IPV6)
		p->err = ROCE_E_ETHERTYPE;
	return 0;
}

int linktype_parse(int dlt, struct roce_pkt *p, const uint8_t *data, size_t caplen, size_t len,
		   unsigned flags)
{
	switch (dlt) {
	case DLT_EN10MB:
		roce_parse_frame(p, data, caplen, len, flags);
		return 0;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		roce_parse_ip(p, data, caplen, len, flags);
		return 0;
	case DLT_LINUX_SLL:
		return cooked(p, data, caplen, len, 16, 14, flags);
	case DLT_LINUX_SLL2:
		return cooked(p, data, caplen, len, 20, 0, flags);
	default:
		return -1;
	}
}
