/* The counter read of the fault profiles (fault.def, hook COUNT): what
 * the agent reads of the counters, misreported; the device counts on. */
#include "soft.h"

void soft_fault_counters(const struct soft_dev *dev, struct soft_counters *c)
{
	if (dev->fault != SOFT_FAULT_COUNTERS_LIE)
		return;
	c->rx_drop_icrc = 0;
	c->tx_nak_psn_seq = 0;
	c->tx_rnr_nak = 0;
	c->tx_cnp = 0;
	c->tx_packets /= 2;
	c->rx_frames = 0;
}
