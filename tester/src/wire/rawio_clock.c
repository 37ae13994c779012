/*
 * Which clock times the tester's frames (see rawio.h): what the driver
 * offers (ETHTOOL_GET_TS_INFO), the choice between the adapter's clock
 * and the kernel's, and the adapter clock's offset to CLOCK_REALTIME.
 */
#include "rawio_clock.h"
#include "rawio.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const char *rawio_clock_name(enum rawio_clock c)
{
	switch (c) {
	case RAWIO_CLOCK_HOST: return "host";
	case RAWIO_CLOCK_KERNEL: return "kernel";
	case RAWIO_CLOCK_ADAPTER: return "adapter";
	case RAWIO_CLOCK_COUNT: break;
	}
	return "?";
}

int rawio_ts_caps_query(const char *ifname, struct rawio_ts_caps *caps, char *err, size_t errlen)
{
	memset(caps, 0, sizeof *caps);
	caps->phc_index = -1;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		text_printf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	struct ethtool_ts_info info = { .cmd = ETHTOOL_GET_TS_INFO };
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	ifr.ifr_data = (void *)&info;
	int r = ioctl(fd, SIOCETHTOOL, &ifr);
	int e = errno;
	close(fd);
	if (r != 0) {
		text_printf(err, errlen, "%s: ETHTOOL_GET_TS_INFO: %s", ifname, strerror(e));
		return -1;
	}
	caps->known = true;
	caps->so_timestamping = info.so_timestamping;
	caps->phc_index = info.phc_index;
	caps->tx_types = info.tx_types;
	caps->rx_filters = info.rx_filters;
	return 0;
}

bool rawio_ts_caps_hardware(const struct rawio_ts_caps *caps)
{
	const unsigned need = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;
	return caps->known && (caps->so_timestamping & need) == need && caps->phc_index >= 0 &&
	       (caps->tx_types & (1u << HWTSTAMP_TX_ON)) && (caps->rx_filters & (1u << HWTSTAMP_FILTER_ALL));
}

void rawio_choose_clocks(const struct rawio_ts_caps *caps, enum rawio_tstamp_pref pref, enum rawio_path path,
			 const char *ifname, struct rawio_clocks *out)
{
	out->rx = RAWIO_CLOCK_KERNEL;
	out->tx = RAWIO_CLOCK_HOST;
	if (pref == RAWIO_TS_HOST) {
		text_printf(out->why, sizeof out->why,
			 "kernel receive timestamps and host send times, both CLOCK_REALTIME (--tstamp host)");
		return;
	}
	if (!caps->known) {
		text_printf(out->why, sizeof out->why,
			 "%s did not say what it can timestamp: kernel receive timestamps, host send times", ifname);
	} else if (!rawio_ts_caps_hardware(caps)) {
		text_printf(out->why, sizeof out->why,
			 "%s has no hardware clock that stamps every frame both ways (PHC %d, %s%s): kernel receive "
			 "timestamps, host send times",
			 ifname, caps->phc_index,
			 caps->so_timestamping & SOF_TIMESTAMPING_TX_HARDWARE ? "hardware send stamps" : "no hardware send stamps",
			 caps->so_timestamping & SOF_TIMESTAMPING_RX_HARDWARE ? ", hardware receive stamps"
									       : ", no hardware receive stamps");
	} else if (path == RAWIO_PATH_PCAP) {
		text_printf(out->why, sizeof out->why,
			 "%s has a hardware clock (/dev/ptp%d), but libpcap stamps only received frames with it: kernel "
			 "receive timestamps and host send times, so both ends of an interval share a clock (use the ring path)",
			 ifname, caps->phc_index);
	} else {
		out->rx = out->tx = RAWIO_CLOCK_ADAPTER;
		text_printf(out->why, sizeof out->why, "the adapter's clock (/dev/ptp%d) stamps sent and received frames",
			 caps->phc_index);
	}
}

/* The PHC's reading minus CLOCK_REALTIME, from the tightest of a few
 * reads sandwiched between two system clock reads. */
int rawio_phc_offset(int phc_index, int64_t *offset_ns, char *err, size_t errlen)
{
	char path[32];
	snprintf(path, sizeof path, "/dev/ptp%d", phc_index);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		text_printf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	clockid_t id = (clockid_t)((~(unsigned)fd << 3) | 3u); /* the kernel's FD_TO_CLOCKID */
	int64_t best_span = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		struct timespec a, p, b;
		clock_gettime(CLOCK_REALTIME, &a);
		if (clock_gettime(id, &p) != 0) {
			text_printf(err, errlen, "%s: clock_gettime: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		clock_gettime(CLOCK_REALTIME, &b);
		int64_t ta = (int64_t)a.tv_sec * 1000000000 + a.tv_nsec, tb = (int64_t)b.tv_sec * 1000000000 + b.tv_nsec;
		int64_t tp = (int64_t)p.tv_sec * 1000000000 + p.tv_nsec;
		if (tb - ta < best_span) {
			best_span = tb - ta;
			*offset_ns = tp - (ta + (tb - ta) / 2);
		}
	}
	close(fd);
	return 0;
}

/* Turns the adapter's timestamping on for every frame both ways; the
 * previous setting is kept in *old to be put back. */
int rawio_hwtstamp_enable(const char *ifname, struct hwtstamp_config *old, char *err, size_t errlen)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		text_printf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	memset(old, 0, sizeof *old);
	ifr.ifr_data = (void *)old;
	if (ioctl(fd, SIOCGHWTSTAMP, &ifr) != 0)
		memset(old, 0, sizeof *old);
	struct hwtstamp_config cfg = { .tx_type = HWTSTAMP_TX_ON, .rx_filter = HWTSTAMP_FILTER_ALL };
	ifr.ifr_data = (void *)&cfg;
	int r = ioctl(fd, SIOCSHWTSTAMP, &ifr);
	int e = errno;
	close(fd);
	if (r != 0) {
		text_printf(err, errlen, "%s: SIOCSHWTSTAMP: %s%s", ifname, strerror(e),
			 e == EPERM ? " (needs CAP_NET_ADMIN)" : "");
		return -1;
	}
	return 0;
}

void rawio_hwtstamp_restore(const char *ifname, const struct hwtstamp_config *old)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	struct hwtstamp_config cfg = *old;
	ifr.ifr_data = (void *)&cfg;
	ioctl(fd, SIOCSHWTSTAMP, &ifr);
	close(fd);
}
