/* The backend registry and the error helper shared by the backends. */
#include "backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

int be_error_set(struct be_error *err, enum be_status code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->code = code;
		text_vprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static const struct backend_factory *const factories[] = {
	&backend_soft_factory,
#ifdef ROCE_AGENT_HAVE_IBVERBS
	&backend_ibverbs_factory,
#endif
};

const struct backend_factory *backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof factories / sizeof factories[0]; i++)
		if (strcmp(factories[i]->name, name) == 0)
			return factories[i];
	return NULL;
}

const char *backend_names(void)
{
#ifdef ROCE_AGENT_HAVE_IBVERBS
	return "soft, ibverbs";
#else
	return "soft";
#endif
}
