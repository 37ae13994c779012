/* A RoCE engine bound to the tester's port (see rdma_port.h). */
#include "rdma_port.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"

/* A path, or false when it does not fit (then it names nothing we want). */
static bool pathf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool pathf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= n) {
		buf[0] = '\0';
		return false;
	}
	return true;
}

/* Copies a name, cut to fit. */
static void copy_name(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);
	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static bool read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)n, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static bool link_base(const char *path, char *buf, size_t n)
{
	char target[PATH_MAX];
	ssize_t len = readlink(path, target, sizeof target - 1);
	if (len <= 0)
		return false;
	target[len] = '\0';
	const char *base = strrchr(target, '/');
	copy_name(buf, n, base ? base + 1 : target);
	return true;
}

/* The port of the device at dir whose GIDs have ifname as their netdev
 * (gid_attrs/ndevs/N), or 0. Ports whose link layer is InfiniBand are
 * not ours. */
static unsigned port_with_netdev(const char *dir, const char *ifname)
{
	char path[PATH_MAX];
	pathf(path, sizeof path, "%s/ports", dir);
	DIR *ports = opendir(path);
	if (!ports)
		return 0;
	unsigned found = 0;
	struct dirent *p;
	while (!found && (p = readdir(ports))) {
		if (p->d_name[0] == '.')
			continue;
		char ll[32] = "", nd_dir[PATH_MAX];
		pathf(path, sizeof path, "%s/ports/%s/link_layer", dir, p->d_name);
		if (read_line(path, ll, sizeof ll) && strcmp(ll, "Ethernet"))
			continue;
		pathf(nd_dir, sizeof nd_dir, "%s/ports/%s/gid_attrs/ndevs", dir, p->d_name);
		DIR *nd = opendir(nd_dir);
		if (!nd)
			continue;
		struct dirent *g;
		while (!found && (g = readdir(nd))) {
			char name[64] = "";
			if (g->d_name[0] == '.')
				continue;
			pathf(path, sizeof path, "%s/%s", nd_dir, g->d_name);
			if (read_line(path, name, sizeof name) && !strcmp(name, ifname))
				found = (unsigned)strtoul(p->d_name, NULL, 10);
		}
		closedir(nd);
	}
	closedir(ports);
	return found;
}

/* iWARP devices (node type RNIC) do not take RoCE. */
static bool is_iwarp(const char *dir)
{
	char path[PATH_MAX], t[64] = "";
	pathf(path, sizeof path, "%s/node_type", dir);
	return read_line(path, t, sizeof t) && strstr(t, "RNIC");
}

bool rdma_port_find(const char *sysroot, const char *ifname, struct rdma_binding *b)
{
	memset(b, 0, sizeof *b);
	char path[PATH_MAX], dir[PATH_MAX];
	pathf(path, sizeof path, "%s/class/infiniband", sysroot);
	DIR *d = opendir(path);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		pathf(dir, sizeof dir, "%s/class/infiniband/%s", sysroot, e->d_name);
		if (is_iwarp(dir))
			continue;
		unsigned port = port_with_netdev(dir, ifname);
		char parent[64] = "";
		/* rdma_rxe names its netdev in "parent" (a GID table may be
		 * empty while the interface has no address). */
		pathf(path, sizeof path, "%s/parent", dir);
		if (!port && read_line(path, parent, sizeof parent) && !strcmp(parent, ifname))
			port = 1;
		/* A hardware function lists its netdevs in device/net/. */
		pathf(path, sizeof path, "%s/device/net/%s", dir, ifname);
		if (!port && access(path, F_OK) == 0)
			port = 1;
		if (!port)
			continue;
		found = true;
		copy_name(b->ibdev, sizeof b->ibdev, e->d_name);
		b->port = port;
		pathf(path, sizeof path, "%s/device/driver", dir);
		if (link_base(path, b->driver, sizeof b->driver)) {
			pathf(path, sizeof path, "%s/device", dir);
			link_base(path, b->pci, sizeof b->pci);
		} else if (parent[0] || !strncmp(e->d_name, "rxe", 3)) {
			copy_name(b->driver, sizeof b->driver, "rdma_rxe");
		}
	}
	closedir(d);
	return found;
}

void rdma_port_advice(const struct rdma_binding *b, const char *ifname, char *out, size_t n)
{
	/* Names from sysfs and fixed advice: one paragraph, cut visibly in a
	 * buffer too small for it. */
	text_printf(out, n,
		    "%s is port %u of the RDMA device %s (driver %s): its RoCE engine takes the DUT's RoCEv2 "
		    "packets before the tester sees them. Free the port, or run the tester on a port without RDMA. ",
		    ifname, b->port, b->ibdev, b->driver[0] ? b->driver : "unknown");
	const char *pci = b->pci[0] ? b->pci : "<PCI address>";
	if (!strcmp(b->driver, "rdma_rxe"))
		text_appendf(out, n, "Soft-RoCE: 'rdma link delete %s'.", b->ibdev);
	else if (!strcmp(b->driver, "mlx5_core"))
		text_appendf(out, n,
			     "mlx5: 'devlink dev param set pci/%s name enable_roce value false cmode driverinit' then "
			     "'devlink dev reload pci/%s' (RoCE off on this function only).",
			     pci, pci);
	else if (!strcmp(b->driver, "ice"))
		text_appendf(out, n,
			     "ice/irdma: 'devlink dev param set pci/%s name enable_roce value false cmode runtime'.", pci);
	else if (!strcmp(b->driver, "bnxt_en"))
		text_appendf(out, n,
			     "bnxt_re: RoCE cannot be turned off per function from Linux; 'modprobe -r bnxt_re' detaches "
			     "it from every Broadcom port of this host.");
	else
		text_appendf(out, n, "Unload the RDMA driver of %s (see 'rdma link show').", b->ibdev);
}
