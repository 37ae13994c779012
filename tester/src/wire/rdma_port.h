/*
 * Is a RoCE engine bound to the tester's port? An RDMA NIC's hardware (or
 * the kernel's rdma_rxe) consumes the RoCEv2 packets addressed to its own
 * port before any packet socket sees them, so the tester would never see
 * the DUT's answers. Found through sysfs: an InfiniBand device whose port
 * has the interface as its netdev (gid_attrs/ndevs, rxe's parent, or the
 * PCI function's infiniband/ folder), with Ethernet as its link layer.
 */
#ifndef ROCE_TESTER_RDMA_PORT_H
#define ROCE_TESTER_RDMA_PORT_H

#include <stdbool.h>
#include <stddef.h>

struct rdma_binding {
	char ibdev[64];   /* "mlx5_0", "rxe0" */
	unsigned port;    /* its port on the interface (1 when unknown) */
	char driver[64];  /* the PCI function's driver ("mlx5_core"), "rdma_rxe", or "" */
	char pci[64];     /* the PCI function ("0000:3b:00.0"), "" for software devices */
};

/* Looks under sysroot (normally "/sys") for a RoCE device on ifname;
 * returns true and fills *b when there is one. */
bool rdma_port_find(const char *sysroot, const char *ifname, struct rdma_binding *b);

/* What stops the tester, and how to free the port, for this driver. */
void rdma_port_advice(const struct rdma_binding *b, const char *ifname, char *out, size_t n);

#endif
