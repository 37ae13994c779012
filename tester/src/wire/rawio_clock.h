/* The adapter clock's plumbing, internal to rawio (see rawio_clock.c). */
#ifndef ROCE_TESTER_RAWIO_CLOCK_H
#define ROCE_TESTER_RAWIO_CLOCK_H

#include <linux/net_tstamp.h>
#include <stddef.h>
#include <stdint.h>

/* The PHC /dev/ptpN's reading minus CLOCK_REALTIME. */
int rawio_phc_offset(int phc_index, int64_t *offset_ns, char *err, size_t errlen);
int rawio_hwtstamp_enable(const char *ifname, struct hwtstamp_config *old, char *err, size_t errlen);
void rawio_hwtstamp_restore(const char *ifname, const struct hwtstamp_config *old);

#endif
