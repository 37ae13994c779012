/*
 * roce-agent: serves roce-tester over TCP (docs/agent-protocol.md) and runs
 * verbs on a device: the embedded software DUT (--backend soft, the
 * default) or a real RDMA device through libibverbs (--backend ibverbs).
 */
#include "agent.h"
#include "soft/soft.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <glib-unix.h>

#include "text.h"

static gboolean on_signal(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_CONTINUE;
}

static char *read_token(const char *path, size_t *len, char *err, size_t errlen)
{
	gchar *text = NULL;
	gsize n = 0;
	GError *gerr = NULL;
	struct stat st;
	if (stat(path, &st) == 0 && (st.st_mode & 0004))
		g_warning("--token-file %s is readable by everyone", path);
	if (!g_file_get_contents(path, &text, &n, &gerr)) {
		text_printf(err, errlen, "--token-file %s: %s", path, gerr->message);
		g_error_free(gerr);
		return NULL;
	}
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ' || text[n - 1] == '\t'))
		text[--n] = '\0';
	if (n == 0 || strlen(text) != n) {
		text_printf(err, errlen, "--token-file %s: the token is empty or holds a NUL byte", path);
		g_free(text);
		return NULL;
	}
	/* Anyone who records one session can try tokens offline at the speed
	 * of HMAC-SHA-256: only a token too long to guess stands that. */
	char why[256];
	if (!ap_auth_token_check(text, n, why, sizeof why)) {
		text_printf(err, errlen, "--token-file %s: %s", path, why);
		memset(text, 0, n);
		g_free(text);
		return NULL;
	}
	*len = n;
	return text;
}

static void list_counters(bool markdown)
{
	if (markdown)
		printf("| Counter | Meaning |\n|---|---|\n");
#define SOFT_COUNTER_LIST(n, text) printf(markdown ? "| `%s` | %s |\n" : "%-22s %s\n", #n, text);
	SOFT_COUNTERS(SOFT_COUNTER_LIST)
#undef SOFT_COUNTER_LIST
}

static void list_faults(bool markdown)
{
	if (markdown) {
		printf("| Profile | Rule broken | Where it acts | What the soft DUT does |\n|---|---|---|---|\n");
	}
	for (unsigned f = 1; f < SOFT_FAULT_COUNT; f++) {
		const struct soft_fault_info *i = soft_fault_info((enum soft_fault)f);
		if (markdown)
			printf("| `%s` | %s | %s | %s |\n", i->name, i->rule, soft_fault_hook_name(i->hook), i->text);
		else
			printf("%-26s %-20s %s\n", i->name, i->rule, i->text);
	}
}

int main(int argc, char **argv)
{
	gchar *listen = NULL, *token_file = NULL, *backend = NULL, *iface = NULL, *device = NULL, *fault = NULL;
	gchar *hostile = NULL, *hostile_at = NULL;
	gboolean rcm = FALSE, rocev1 = FALSE, verbose = FALSE, faults = FALSE, counters = FALSE, markdown = FALSE, version = FALSE;
	gboolean hostiles = FALSE;
	gint cnp_interval = 50, line_rate = 1000, recovery = 2000, hello_timeout = AGENT_HELLO_TIMEOUT_S, vlan = 0;
	gint64 hostile_count = AGENT_HOSTILE_DEFAULT_COUNT;
	GOptionEntry entries[] = {
		{ "listen", 'l', 0, G_OPTION_ARG_STRING, &listen, "Listen on HOST:PORT (required; [v6]:PORT for IPv6)", "HOST:PORT" },
		{ "token-file", 't', 0, G_OPTION_ARG_FILENAME, &token_file, "The shared token the tester proves it holds (required; at least 128 random bits)", "FILE" },
		{ "backend", 'b', 0, G_OPTION_ARG_STRING, &backend, "Backend: soft (default) or ibverbs", "NAME" },
		{ "iface", 'i', 0, G_OPTION_ARG_STRING, &iface, "soft: the network interface of the software DUT", "IF" },
		{ "device", 'd', 0, G_OPTION_ARG_STRING, &device, "ibverbs: the RDMA device (default: the first)", "NAME" },
		{ "fault", 'f', 0, G_OPTION_ARG_STRING, &fault, "soft: break one rule on purpose (see --list-faults)", "NAME" },
		{ "rcm", 0, 0, G_OPTION_ARG_NONE, &rcm, "soft: enable RoCEv2 congestion management (ECT, CNPs, rate control)", NULL },
		{ "cnp-interval-us", 0, 0, G_OPTION_ARG_INT, &cnp_interval, "soft: minimum time between CNPs per QP (default 50)", "US" },
		{ "rcm-line-rate", 0, 0, G_OPTION_ARG_INT, &line_rate, "soft: a QP's rate before any CNP, Mb/s (default 1000)", "MBPS" },
		{ "rcm-recovery-us", 0, 0, G_OPTION_ARG_INT, &recovery, "soft: rate recovery period (default 2000)", "US" },
		{ "hostile", 0, 0, G_OPTION_ARG_STRING, &hostile, "Misbehave wholesale on purpose, to test the tester (see --list-hostile)", "MODE" },
		{ "hostile-at", 0, 0, G_OPTION_ARG_STRING, &hostile_at, "agent-hang, agent-refuse, agent-disconnect: the method they strike at (default poll_cq)", "METHOD" },
		{ "hostile-count", 0, 0, G_OPTION_ARG_INT64, &hostile_count, "soft: at most this many hostile frames (default 100000)", "N" },
		{ "vlan", 0, 0, G_OPTION_ARG_INT, &vlan, "soft: tag the DUT's own frames with this 802.1Q VLAN ID (1..4094), PCP from the address vector's SL, and take only that VLAN's frames", "ID" },
		{ "rocev1", 0, 0, G_OPTION_ARG_NONE, &rocev1, "soft: a dual-mode port: RoCE v1 GIDs next to the RoCEv2 ones, each QP's protocol from its GID's type (A17.8)", NULL },
		{ "list-faults", 0, 0, G_OPTION_ARG_NONE, &faults, "List the fault profiles and exit", NULL },
		{ "list-hostile", 0, 0, G_OPTION_ARG_NONE, &hostiles, "List the hostile modes and exit", NULL },
		{ "list-counters", 0, 0, G_OPTION_ARG_NONE, &counters, "List the soft DUT's counters and exit", NULL },
		{ "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown, "With --list-faults, --list-counters or --list-hostile: as a Markdown table", NULL },
		{ "hello-timeout", 0, 0, G_OPTION_ARG_INT, &hello_timeout, "Close a connection that has not authenticated within SECS (default 10)", "SECS" },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Log sessions and errors", NULL },
		{ "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
		{ NULL, 0, 0, 0, NULL, NULL, NULL },
	};
	GOptionContext *ctx = g_option_context_new("- serve roce-tester on a device under test");
	g_option_context_set_summary(ctx,
		"Runs verbs on the device under test for roce-tester, over a JSON protocol on TCP\n"
		"whose peers prove they share a token without sending it (docs/agent-protocol.md).\n"
		"Backends: soft, the embedded software RoCEv2 DUT on an Ethernet interface\n"
		"(needs CAP_NET_RAW); ibverbs, a real RDMA device through libibverbs.");
	g_option_context_set_description(ctx,
		"Examples:\n"
		"  roce-agent --listen 198.18.0.1:7471 --token-file token --iface eth1\n"
		"  roce-agent --listen 10.0.0.2:7471 --token-file token --backend ibverbs --device mlx5_0\n"
		"  roce-agent --list-faults\n"
		"\n"
		"SIGINT or SIGTERM closes every session, destroys what they created and exits.\n"
		"Exit status: 0 clean shutdown or a listing; 1 the token, the backend or the\n"
		"listening socket failed (the message says why); 2 bad usage.\n"
		"The manual is roce-agent(8); running on real hardware: docs/real-hardware.md.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	GError *gerr = NULL;
	if (!g_option_context_parse(ctx, &argc, &argv, &gerr)) {
		fprintf(stderr, "roce-agent: %s\n", gerr->message);
		return 2;
	}
	g_option_context_free(ctx);
	if (version) {
		printf("roce-agent %s (protocol %d; backends: %s)\n", ROCE_AGENT_VERSION, AGENT_PROTOCOL_VERSION,
		       backend_names());
		return 0;
	}
	if (faults || counters || hostiles) {
		if (faults)
			list_faults(markdown);
		else if (counters)
			list_counters(markdown);
		else
			agent_hostile_list(markdown);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "roce-agent: unexpected argument '%s'\n", argv[1]);
		return 2;
	}
	if (!listen || !token_file) {
		fprintf(stderr, "roce-agent: --listen HOST:PORT and --token-file FILE are required\n");
		return 2;
	}
	if (hello_timeout <= 0 || hello_timeout > 3600) {
		fprintf(stderr, "roce-agent: --hello-timeout must be 1..3600 seconds\n");
		return 2;
	}
	if (cnp_interval < 0 || line_rate <= 0 || recovery <= 0) {
		fprintf(stderr, "roce-agent: --cnp-interval-us, --rcm-line-rate and --rcm-recovery-us must be positive\n");
		return 2;
	}
	if (vlan < 0 || vlan > 4094) {
		fprintf(stderr, "roce-agent: --vlan must be a VLAN ID, 1..4094\n");
		return 2;
	}
	const struct backend_factory *factory = backend_find(backend ? backend : "soft");
	if (!factory) {
		fprintf(stderr, "roce-agent: unknown backend '%s' (built with: %s)\n", backend, backend_names());
		return 2;
	}
	if ((fault || vlan || rocev1) && strcmp(factory->name, "soft") != 0) {
		fprintf(stderr, "roce-agent: --%s applies to the soft backend only\n",
			fault ? "fault" : vlan ? "vlan" : "rocev1");
		return 2;
	}
	enum agent_hostile hmode = AGENT_HOSTILE_NONE;
	if (hostile && strcmp(hostile, "none") != 0) {
		hmode = agent_hostile_by_name(hostile);
		if (hmode == AGENT_HOSTILE_COUNT) {
			fprintf(stderr, "roce-agent: unknown hostile mode '%s' (roce-agent --list-hostile)\n", hostile);
			return 2;
		}
		if (agent_hostile_info(hmode)->layer == AGENT_HOSTILE_DEVICE && strcmp(factory->name, "soft") != 0) {
			fprintf(stderr, "roce-agent: --hostile %s applies to the soft backend only\n", hostile);
			return 2;
		}
	}
	if (hostile_count <= 0) {
		fprintf(stderr, "roce-agent: --hostile-count must be positive\n");
		return 2;
	}

	char err[512];
	struct agent a = { .listen_fd = -1, .factory = factory, .verbose = verbose, .hostile = hmode,
			   .hello_timeout_ms = (unsigned)hello_timeout * 1000 };
	if (hmode != AGENT_HOSTILE_NONE && agent_hostile_info(hmode)->layer == AGENT_HOSTILE_AGENT)
		a.hostile_at = hostile_at ? hostile_at : "poll_cq";
	a.token = read_token(token_file, &a.token_len, err, sizeof err);
	if (!a.token) {
		fprintf(stderr, "roce-agent: %s\n", err);
		return 1;
	}
	struct backend_options o = {
		.device = device,
		.iface = iface,
		.fault = fault,
		.rcm = rcm,
		.cnp_interval_us = (unsigned)cnp_interval,
		.rcm_line_rate_mbps = (unsigned)line_rate,
		.rcm_recovery_us = (unsigned)recovery,
		.hostile = hmode != AGENT_HOSTILE_NONE && agent_hostile_info(hmode)->layer == AGENT_HOSTILE_DEVICE ? hostile : NULL,
		.hostile_count = (uint64_t)hostile_count,
		.vlan = (unsigned)vlan,
		.rocev1 = rocev1,
	};
	a.be = factory->open(&o, err, sizeof err);
	if (!a.be) {
		fprintf(stderr, "roce-agent: backend %s: %s\n", factory->name, err);
		return 1;
	}
	if (agent_listen(&a, listen, err, sizeof err) != 0) {
		fprintf(stderr, "roce-agent: %s\n", err);
		a.be->ops->close(a.be);
		return 1;
	}
	a.loop = g_main_loop_new(NULL, FALSE);
	guint s1 = g_unix_signal_add(SIGINT, on_signal, a.loop);
	guint s2 = g_unix_signal_add(SIGTERM, on_signal, a.loop);
	signal(SIGPIPE, SIG_IGN);
	fprintf(stderr, "roce-agent: listening on %s, backend %s%s%s%s%s\n", listen, factory->name,
		fault ? ", fault " : "", fault ? fault : "", hmode ? ", hostile " : "", hmode ? hostile : "");
	g_main_loop_run(a.loop);

	agent_shutdown(&a);
	a.be->ops->close(a.be);
	g_source_remove(s1);
	g_source_remove(s2);
	g_main_loop_unref(a.loop);
	memset(a.token, 0, a.token_len);
	g_free(a.token);
	g_free(listen);
	g_free(token_file);
	g_free(backend);
	g_free(iface);
	g_free(device);
	g_free(fault);
	g_free(hostile);
	g_free(hostile_at);
	return 0;
}
