/* mcast.c: the Multicast subtree of a packet sent to a group. */
#ifndef ROCEV2_MCAST_H
#define ROCEV2_MCAST_H

#include "rocev2.h"

void rocev2_register_mcast(int proto);
/* Adds the Multicast subtree under rt when p (parsed from its IP header,
 * or from its Ethernet header for the MAC) is sent to a group. */
void rocev2_mcast_tree(proto_tree *rt, tvbuff_t *tvb, const struct roce_pkt *p);
/* Whether p is a datagram (it has a DETH) sent to a group; *src_qpn is
 * then its sender's QP, the source "port" of its Conversations row. */
bool rocev2_mcast_sender(const struct roce_pkt *p, uint32_t *src_qpn);

#endif
