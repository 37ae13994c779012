/*
 * The fuzzer: the tester as a hostile peer (docs/fuzz.md). A stage of its
 * own, called only by the command layer (fuzz_cmd.c); it calls only down:
 * the peer engine, the wire, the agent client, libroce and the agent
 * protocol's vocabulary.
 *
 * fuzz_run() sets the DUT up through its agent (QPs of every transport it
 * offers, regions and windows filled with known patterns between guard
 * regions), sends requests mutated from valid ones for the time it is
 * given, judges everything the DUT answers and what its memory holds
 * afterwards (leak, wrong acceptance, hang, corruption), reduces each
 * finding to the shortest request sequence that still shows it and writes
 * it as a conformance case file. The command runs those cases with the
 * runner and writes the report.
 */
#ifndef ROCE_TESTER_FUZZ_H
#define ROCE_TESTER_FUZZ_H

#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct fuzz_opts {
	const char *iface;      /* the tester's interface towards the DUT */
	const char *agent;      /* HOST:PORT */
	const char *token_file; /* NULL: an empty token */
	int ip_version;         /* 4 or 6 */
	int vlan, vlan_pcp;     /* vlan -1: none */
	const char *dut_ip;     /* the DUT GID with this address; NULL: the first RoCEv2 one */
	bool resolve_self;      /* skip the kernel's neighbour table */
	uint64_t duration_ns;   /* how long to fuzz */
	uint64_t seed;
	unsigned rate;          /* requests per second at most */
	uint64_t window_ns;     /* how long a request's answer is waited for; 0: adaptive */
	uint64_t agent_timeout_ns;
	uint64_t reduce_ns;     /* time spent reducing findings, at most */
	unsigned max_findings;  /* distinct findings kept (then the run stops) */
	const char *case_dir;   /* where the reproducing case files go */
	const char *console_log; /* the DUT's kernel console to watch (rxe), or NULL */
	const char *request_log; /* each generated request written here, one line each, or NULL */
	bool quiet;
	volatile sig_atomic_t *stop; /* set by a signal: end at the next batch */
};

/* What a run found, for the command. */
struct fuzz_case_file {
	char *id;   /* the case's ID */
	char *path; /* the .case file */
	int finding; /* index into the record's findings */
};

struct fuzz_result {
	uint64_t requests;    /* request packets sent while fuzzing */
	uint64_t elapsed_ns;  /* time spent fuzzing */
	unsigned findings;
	bool dut_wedged;      /* the DUT stopped answering for good: its cases were not replayed */
	bool setup_error;     /* nothing was fuzzed: err says why */
	bool interrupted;
	char err[512];        /* a set-up failure: an agent's or the interface's one line */
	JsonObject *record;   /* results.json's "fuzz" member */
	JsonObject *setup;    /* results.json's "setup" member (interface, agent, DUT) */
	struct fuzz_case_file *cases;
	size_t n_cases;
};

/* Runs the fuzzer. Returns 0 when it ran (res says what it found), -1 on a
 * set-up failure (res->err). */
int fuzz_run(const struct fuzz_opts *o, struct fuzz_result *res);
void fuzz_result_free(struct fuzz_result *res);

/* Records the verdict the runner gave finding i's case ("fail" confirms
 * it) in the run's record. */
void fuzz_record_case_verdict(JsonObject *record, int finding, const char *verdict, const char *reason);

#endif
