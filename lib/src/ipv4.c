/* The IPv4 header checksum, for the builder and the checks. */
#include "roce/packet.h"

uint16_t roce_ipv4_checksum(const uint8_t *ip, size_t hl)
{
	uint32_t sum = 0;
	for (size_t i = 0; i + 1 < hl; i += 2)
		if (i != 10) /* the checksum field counts as zero */
			sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}
