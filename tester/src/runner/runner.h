/*
 * The runner: executes parsed cases against the DUT, one agent session
 * and one set of fresh QPs per case, with the peer engine on the wire and
 * every wait bounded; records what happened for the results file and the
 * annotated capture.
 */
#ifndef ROCE_TESTER_RUNNER_H
#define ROCE_TESTER_RUNNER_H

#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent_client.h"
#include "capture.h"
#include "caselang.h"
#include "peer.h"
#include "rawio.h"

/* V_INFORMATIVE: every requirement held, and the case reports behaviour
 * that conforming devices differ on (an 'inform' statement fired). */
enum verdict { V_PASS, V_FAIL, V_NOT_APPLICABLE, V_ERROR, V_INFORMATIVE, V_COUNT };
const char *verdict_name(enum verdict v);

/* DUT frames one case records (and writes to the capture) by default: a
 * DUT that floods the tester gets the rest counted, not kept, so that
 * memory, the capture and results.json stay bounded. A conforming device
 * sends far fewer in any case of the suite (the largest, an 8 MiB WRITE,
 * is 8192 packets at a PMTU of 1024). */
#define RUNNER_RECORD_FRAMES 50000u

struct runner_opts {
	const char *iface;
	const char *agent;      /* HOST:PORT */
	const char *token_file; /* NULL: an empty token */
	int vlan;               /* -1: none */
	int vlan_pcp;
	unsigned ip_versions;   /* bits 1<<4, 1<<6 */
	enum rawio_tstamp_pref tstamp;
	uint64_t agent_timeout_ns; /* per agent call */
	uint64_t default_wait_ns;  /* expect without 'within' */
	unsigned record_frames;    /* DUT frames a case records at most; 0: RUNNER_RECORD_FRAMES */
	const char *dut_ip4, *dut_ip6; /* override the addresses taken from the DUT's GIDs */
	bool resolve_self; /* skip the kernel's neighbour table */
	bool quiet, verbose;
};

/* One packet of a case, kept until the case ends, then written to the
 * capture in time order with its annotation. */
struct case_pkt {
	uint64_t ts_ns;
	bool tx;
	int step;        /* the step running when it went by, -1 before the first */
	uint32_t qpn;    /* tester QPN it belongs to, 0 if none */
	uint8_t *data;
	size_t len;
	char *note;      /* what the engine or a rule did ("ACK", "retransmission", rule text) */
	char *annot;     /* what an expectation said about it */
	uint64_t frame;  /* set when written */
	bool consumed;   /* matched by an expectation */
	bool injected;   /* sent by an inject step: built by the case on purpose */
	int matched;     /* the step (1-based) whose expectation it met, 0 if none */
	long answers;    /* a response: the packet it answers (flow analysis), -1 if none */
	/* A datagram to a multicast group of the case: the group's index + 1
	 * (0: none), and the case QPs (bits by index) whose tester side took
	 * it in an expectation (each attached QP receives its own copy). */
	unsigned group;
	uint32_t group_taken;
};

/* What a symbol's value measures, for reports (values are plain numbers). */
enum sym_unit { SYM_PLAIN, SYM_NS, SYM_BYTES, SYM_BYTES_PER_S, SYM_PER_S };

struct sym_val {
	char *name; /* "q.qpn", "p" */
	uint64_t value;
	enum sym_unit unit;
};

struct case_qp {
	const char *name;
	enum roce_transport type;
	int ipv, fi; /* its IP version (4, 6) and family index (0, 1) */
	enum ap_qp_state state; /* the state the runner last moved it to */
	/* The attributes it was brought up with, per transition (RESET->INIT,
	 * INIT->RTR, RTR->RTS): a later 'dut modify' along the same path
	 * gets those it does not give itself. */
	JsonObject *bringup[3];
	int64_t dut_qp, dut_cq; /* agent handles */
	int64_t dut_ah[2];      /* UD: the address handles towards the tester, RoCEv2 [0] and v1 [1]; -1 none yet */
	uint32_t dut_qpn, tester_qpn;
	uint32_t dut_psn, tester_psn;
	uint32_t dut_qkey, tester_qkey;
	unsigned pmtu;
	/* The DUT's traffic on this QP, counted on every frame (recorded or
	 * not), against what the case asked of it: a responder acknowledges
	 * requests, a requester sends the work requests it was given. */
	uint64_t posted;       /* work requests the case posted on the DUT's side */
	uint64_t tx_requests;  /* request packets the tester sent to it */
	uint64_t rx_acks;      /* Acknowledge packets it sent */
	uint64_t rx_messages;  /* request messages it started (First/Only past every PSN before) */
	uint32_t rx_req_psn;   /* the highest request PSN it sent */
	bool rx_have_psn;
	unsigned sl; /* the SL of the DUT's address vector: its frames' PCP on a VLAN */
	bool rocev1; /* its source GID is of type RoCE v1 (A17.8), the tester's side sends v1 */
	uint8_t tc, hop_limit; /* the address vector's, for more address handles */
	uint32_t flow_label;
	/* Connection manager (the tester is the active side): the service
	 * the DUT listens on for this QP, both communication IDs, the
	 * transaction of the REQ and how many the tester started. */
	uint64_t cm_service_id;
	uint32_t cm_local_id, cm_remote_id;
	uint64_t cm_req_tid;
	unsigned cm_transactions;
	/* XRC: CL_XRC_SEND (the DUT's initiator, the tester's side a target)
	 * or CL_XRC_RECV (the DUT's target in domain xrcd, the tester's side
	 * an initiator); 0 for another type. */
	int xrc;
	const char *xrcd;
};

struct case_mr {
	const char *name;
	bool peer;
	int64_t handle;
	uint64_t addr, len;
	uint32_t rkey, lkey;
	const struct peer_mr *pmr;
};

struct run_ctx;

/* Everything that lives for a whole run. */
struct runner {
	struct runner_opts opts;
	struct rawio io;
	bool io_open;
	struct peer *peer;
	struct agent agent;
	gchar *token; /* the shared token, whole; NULL: empty */
	struct capture *cap;
	volatile sig_atomic_t *interrupted;
	uint32_t first_tester_qpn, next_tester_qpn; /* the run's tester QPNs: [first, next) */
	/* What the run learnt about the DUT (from the first session). */
	bool dut_known;
	unsigned dut_caps;
	JsonObject *dut_hello, *dut_device, *dut_port;
	JsonArray *dut_gids;
	unsigned counter_ports; /* ports the DUT's counter snapshots cover; 0: not known yet */
	struct {
		bool ok;
		bool no_gid; /* the DUT lists no RoCEv2 GID of this version */
		int sgid_index;
		int sgid_index_v1; /* a RoCE v1 GID of the same address (dual-mode port), -1 if none */
		uint8_t ip[16];
		char gid[64]; /* the GID as the DUT gave it; inet_pton accepted it, so < INET6_ADDRSTRLEN */
		uint8_t mac[6];
		/* The tester's own sentences (with an interface name and an
		 * address at most), cut visibly were they ever longer. */
		char how[96];
		char why_not[256];
	} fam[2]; /* [0] IPv4, [1] IPv6 */
	/* The case being run. */
	struct run_ctx *rc;
	/* The liveness probe after a case (runner_alive.c), parsed on first use. */
	struct cl_case *alive_probe;
};

int runner_init(struct runner *r, const struct runner_opts *o, volatile sig_atomic_t *interrupted, char *err,
		size_t errlen);
void runner_fini(struct runner *r);

/* Runs one case at one IP version; returns its result record (caller
 * owns) and the verdict. */
JsonObject *runner_run_case(struct runner *r, const struct cl_case *c, int ip_version, enum verdict *v);

/* The setup record (interface, agent, DUT) for the results file. */
JsonObject *runner_setup_json(struct runner *r);

#endif
