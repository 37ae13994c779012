/* The fault profiles' table (fault.def). */
#include "soft.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct soft_fault_info faults[SOFT_FAULT_COUNT] = {
	[SOFT_FAULT_NONE] = { "none", "", SOFT_HOOK_NONE, "a conforming device" },
#define SOFT_FAULT(SYM, name, rule, hook, text) [SOFT_FAULT_##SYM] = { name, rule, SOFT_HOOK_##hook, text },
#include "fault.def"
#undef SOFT_FAULT
};

const struct soft_fault_info *soft_fault_info(enum soft_fault f)
{
	return (unsigned)f < SOFT_FAULT_COUNT ? &faults[f] : NULL;
}

enum soft_fault soft_fault_by_name(const char *name)
{
	for (unsigned f = 0; f < SOFT_FAULT_COUNT; f++)
		if (strcmp(faults[f].name, name) == 0)
			return (enum soft_fault)f;
	return SOFT_FAULT_COUNT;
}

const char *soft_fault_hook_name(enum soft_fault_hook h)
{
	switch (h) {
	case SOFT_HOOK_TX: return "transmit rewrite";
	case SOFT_HOOK_RX: return "receive filter";
	case SOFT_HOOK_DECIDE: return "decision point";
	case SOFT_HOOK_COUNT: return "counter read";
	default: return "none";
	}
}

void soft_fault_console_warning(const struct soft_dev *dev, const char *function, const char *fmt, ...)
{
	/* The shape of the kernel's "WARNING: CPU: n PID: n at FILE:LINE
	 * FUNCTION+0xOFF/0xSIZE": what a console watch looks for. */
	char what[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	fprintf(stderr, "roce-agent: WARNING: CPU: 0 PID: %d at soft DUT %s+0x0/0x0 (%s: %s)\n", (int)getpid(), function,
		soft_fault_info(dev->fault)->name, what);
	fflush(stderr);
}
