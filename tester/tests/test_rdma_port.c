/*
 * Finding a RoCE engine bound to the tester's port, on sysfs-like trees
 * built here (the layouts of rdma_rxe, mlx5, ice/irdma, an InfiniBand HCA
 * and an iWARP device), and on this host's own /sys for a port with no
 * RDMA device (the test's veth or loopback).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdma_port.h"
#include "testutil.h"

/* The fixture's paths are short by construction. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static char root[PATH_MAX];

static void mkdirs(const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", rel);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(dir);
	}
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void link_to(const char *rel, const char *target)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (symlink(target, p) != 0)
		perror(p);
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/test_rdma_port.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	struct rdma_binding b;
	char advice[1024];

	/* No infiniband class at all. */
	CHECK(!rdma_port_find(root, "veth0", &b), "no RDMA class: nothing found");

	/* rdma_rxe on veth0: port 1 with a GID on it, and its parent file. */
	put("class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
	put("class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "veth0\n");
	put("class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1", "veth0\n");
	put("class/infiniband/rxe0/parent", "veth0\n");
	put("class/infiniband/rxe0/node_type", "1: CA\n");
	CHECK(rdma_port_find(root, "veth0", &b) && !strcmp(b.ibdev, "rxe0") && b.port == 1 &&
		      !strcmp(b.driver, "rdma_rxe"),
	      "rxe0 found on veth0 (%s port %u driver %s)", b.ibdev, b.port, b.driver);
	rdma_port_advice(&b, "veth0", advice, sizeof advice);
	CHECK(strstr(advice, "rdma link delete rxe0") && strstr(advice, "another port") == NULL &&
		      strstr(advice, "port without RDMA"),
	      "rxe advice: %s", advice);
	CHECK(!rdma_port_find(root, "veth1", &b), "veth1 has no RDMA device");

	/* An rxe whose GID table is empty (no address yet): its parent says it. */
	put("class/infiniband/rxe1/ports/1/link_layer", "Ethernet\n");
	mkdirs("class/infiniband/rxe1/ports/1/gid_attrs/ndevs");
	put("class/infiniband/rxe1/parent", "veth2\n");
	CHECK(rdma_port_find(root, "veth2", &b) && !strcmp(b.ibdev, "rxe1"), "rxe1 found through parent");

	/* mlx5: port 1 of a PCI function, found through the GID netdevs, the
	 * driver through device/driver. */
	mkdirs("devices/pci0000:3a/0000:3b:00.1/net/ens1f1np1");
	mkdirs("bus/pci/drivers/mlx5_core");
	put("class/infiniband/mlx5_1/ports/1/link_layer", "Ethernet\n");
	put("class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/0", "ens1f1np1\n");
	char target[PATH_MAX];
	snprintf(target, sizeof target, "%s/devices/pci0000:3a/0000:3b:00.1", root);
	link_to("class/infiniband/mlx5_1/device", target);
	snprintf(target, sizeof target, "%s/bus/pci/drivers/mlx5_core", root);
	link_to("devices/pci0000:3a/0000:3b:00.1/driver", target);
	CHECK(rdma_port_find(root, "ens1f1np1", &b) && !strcmp(b.ibdev, "mlx5_1") && !strcmp(b.driver, "mlx5_core") &&
		      !strcmp(b.pci, "0000:3b:00.1"),
	      "mlx5_1 found (%s driver %s pci %s)", b.ibdev, b.driver, b.pci);
	rdma_port_advice(&b, "ens1f1np1", advice, sizeof advice);
	CHECK(strstr(advice, "devlink dev param set pci/0000:3b:00.1 name enable_roce value false cmode driverinit") &&
		      strstr(advice, "devlink dev reload pci/0000:3b:00.1"),
	      "mlx5 advice: %s", advice);

	/* ice (irdma): no GID yet, found through the function's net/ folder. */
	mkdirs("devices/pci0000:00/0000:17:00.0/net/ens2f0");
	mkdirs("bus/pci/drivers/ice");
	put("class/infiniband/irdma0/ports/1/link_layer", "Ethernet\n");
	snprintf(target, sizeof target, "%s/devices/pci0000:00/0000:17:00.0", root);
	link_to("class/infiniband/irdma0/device", target);
	snprintf(target, sizeof target, "%s/bus/pci/drivers/ice", root);
	link_to("devices/pci0000:00/0000:17:00.0/driver", target);
	CHECK(rdma_port_find(root, "ens2f0", &b) && !strcmp(b.ibdev, "irdma0") && !strcmp(b.driver, "ice"),
	      "irdma0 found through device/net (%s %s)", b.ibdev, b.driver);
	rdma_port_advice(&b, "ens2f0", advice, sizeof advice);
	CHECK(strstr(advice, "name enable_roce value false cmode runtime") != NULL, "ice advice: %s", advice);

	/* An InfiniBand HCA port and an iWARP device are not RoCE engines. */
	put("class/infiniband/mlx4_0/ports/1/link_layer", "InfiniBand\n");
	put("class/infiniband/mlx4_0/ports/1/gid_attrs/ndevs/0", "ib0\n");
	CHECK(!rdma_port_find(root, "ib0", &b), "an InfiniBand port is not RoCE");
	put("class/infiniband/siw0/node_type", "4: RNIC\n");
	put("class/infiniband/siw0/parent", "eth9\n");
	CHECK(!rdma_port_find(root, "eth9", &b), "an iWARP device is not RoCE");

	/* This host: loopback has no RDMA device. */
	CHECK(!rdma_port_find("/sys", "lo", &b), "lo is bound to %s here", b.ibdev);

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return test_result("test_rdma_port");
}
