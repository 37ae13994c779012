/*
 * The tester's RoCEv2 frames kept out of the local IP stack: a tc ingress
 * program (tcx, Linux 6.6 or later) on the tester's port that drops IPv4
 * and IPv6 UDP datagrams to port 4791 once the packet sockets have seen
 * them (the kernel hands a frame to every packet socket before tc
 * ingress), so that the kernel neither routes them nor looks up a socket
 * for each: at a million frames a second that work costs as much as the
 * ring itself. The UDP guard sockets (rawio.c) swallow the same datagrams
 * when it is not there.
 *
 * Safe on a user's port: the program lives as long as the link's file
 * descriptor, so it goes when the tester closes the port or exits, crash
 * included, and it changes nothing of the port's configuration; taken
 * only when the tester holds UDP port 4791 itself, so that nothing else
 * on the host was receiving those datagrams. Internal to rawio.c.
 */
#ifndef ROCE_TESTER_RAWIO_TCX_H
#define ROCE_TESTER_RAWIO_TCX_H

#include <stddef.h>

/* Attaches the program at ifname's tc ingress; returns the link's file
 * descriptor (close it to detach), or -1 with why. */
int rawio_tcx_drop_rocev2(const char *ifname, char *why, size_t whylen);

#endif
