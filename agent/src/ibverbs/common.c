/*
 * What the ibverbs backend's files share: a failed verb's errno as the
 * protocol's error, the protocol's values to and from libibverbs', port
 * numbers checked, small sysfs files read.
 */
#include "ibverbs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* ---- Errors ---- */

static enum be_status status_of_errno(int e)
{
	switch (e) {
	case EINVAL:
	case ERANGE:
		return BE_BAD_REQUEST;
	case ENOMEM:
	case ENOSPC:
	case EAGAIN:
	case EMFILE:
	case ENFILE:
	case EDQUOT:
		return BE_RESOURCE_LIMIT;
	case EOPNOTSUPP:
	case ENOSYS:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return BE_UNSUPPORTED;
	case EBUSY:
		return BE_INVALID_STATE;
	default:
		return BE_DEVICE_ERROR;
	}
}

/* Sets err from errno value e: "<what>: <strerror>". Returns -1. */
int ib_verb_failed(struct be_error *err, int e, const char *what)
{
	if (e <= 0) /* some verbs return -1 or NULL without setting errno */
		e = EIO;
	return be_error_set(err, status_of_errno(e), "%s: %s", what, strerror(e));
}

/* ---- Conversions ---- */

const char *ib_state_name(enum ibv_qp_state s)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	return (unsigned)s < G_N_ELEMENTS(names) ? names[s] : "UNKNOWN";
}

unsigned ib_mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

unsigned ib_access_to_ibv(unsigned a)
{
	/* BE_ACCESS_* are libibverbs' values, FLUSH's the kernel's uAPI ones
	 * (IB_UVERBS_ACCESS_FLUSH_*), which a library without FLUSH passes
	 * through to the kernel all the same. */
	unsigned known = BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ |
			 BE_ACCESS_REMOTE_ATOMIC | BE_ACCESS_MW_BIND | BE_ACCESS_FLUSH_GLOBAL |
			 BE_ACCESS_FLUSH_PERSISTENT;
	return a & known;
}

void ib_av_to_ah_attr(const struct be_av *av, uint8_t default_port, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof *ah);
	ah->is_global = 1; /* RoCE: every packet carries the GRH (the IP header) */
	memcpy(ah->grh.dgid.raw, av->dgid, 16);
	ah->grh.sgid_index = av->sgid_index;
	ah->grh.hop_limit = av->hop_limit;
	ah->grh.traffic_class = av->traffic_class;
	ah->grh.flow_label = av->flow_label;
	ah->sl = av->sl;
	ah->port_num = av->port ? av->port : default_port;
}

int ib_check_port(struct ib_backend *ib, unsigned port, struct be_error *err)
{
	if (port < 1 || port > ib->attr.phys_port_cnt)
		return be_error_set(err, BE_BAD_REQUEST, "port %u: %s has ports 1..%u", port,
				    ib->name, (unsigned)ib->attr.phys_port_cnt);
	return 0;
}

/* ---- sysfs ---- */

/* Reads a small sysfs file into buf, without the trailing newline. */
int ib_read_sysfs(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}
