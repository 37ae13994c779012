/*
 * The peer engine's per-packet paths allocate nothing once warm: two
 * engines back to back (the tester's and one playing the DUT) exchange
 * SENDs both ways, RDMA WRITEs and READs, scripted injections, duplicates
 * and reordered packets that provoke NAKs and go-back-N, while every call
 * to malloc, calloc, realloc and aligned allocation in this process is
 * counted (the functions are interposed here and forward to glibc's).
 * After a warm-up round, a round of thousands of packets must count none.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZED 1
#endif
#endif

/* ---- Counting allocations ---- */

static volatile bool counting;
static volatile unsigned long allocations;

#ifndef SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

void *malloc(size_t n)
{
	if (counting)
		allocations++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	if (counting)
		allocations++;
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	if (counting)
		allocations++;
	return __libc_realloc(p, n);
}

void *aligned_alloc(size_t a, size_t n)
{
	if (counting)
		allocations++;
	return __libc_memalign(a, n);
}

void *memalign(size_t a, size_t n)
{
	if (counting)
		allocations++;
	return __libc_memalign(a, n);
}

int posix_memalign(void **out, size_t a, size_t n)
{
	if (counting)
		allocations++;
	void *p = __libc_memalign(a, n);
	if (!p)
		return 12; /* ENOMEM */
	*out = p;
	return 0;
}

void free(void *p)
{
	__libc_free(p);
}
#endif

#ifndef SANITIZED /* the engines below run only where allocations are counted */

/* ---- Two engines back to back ---- */

#define US 1000ull
#define MS 1000000ull
#define QA 0x000111
#define QB 0x000222
#define LINK_SLOTS 1024

struct frame {
	int to;
	size_t len;
	uint8_t data[PEER_FRAME_MAX];
};

/* A FIFO of frames in flight, allocated once. */
static struct frame *link_q;
static unsigned link_head, link_n;
static struct peer *peers[2];
static uint64_t now_ns;
static int sides[2] = { 0, 1 };

static int link_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	int me = *(int *)ctx;
	(void)info;
	if (link_n == LINK_SLOTS)
		return 0; /* lost on the wire */
	struct frame *f = &link_q[(link_head + link_n++) % LINK_SLOTS];
	f->to = !me;
	f->len = len;
	memcpy(f->data, frame, len);
	return 0;
}

static void run(uint64_t span)
{
	uint64_t limit = now_ns + span;
	while (now_ns < limit) {
		while (link_n) {
			struct frame *f = &link_q[link_head];
			link_head = (link_head + 1) % LINK_SLOTS;
			link_n--;
			peer_rx(peers[f->to], f->data, f->len, now_ns);
		}
		now_ns += 10 * US;
		peer_advance(peers[0], now_ns);
		peer_advance(peers[1], now_ns);
	}
}

static void endpoint(struct roce_endpoint *ep, int from, uint32_t dest_qpn)
{
	memset(ep, 0, sizeof *ep);
	ep->ip_version = 4;
	uint8_t ma[6] = { 2, 0, 0, 0, 0, 0xA }, mb[6] = { 2, 0, 0, 0, 0, 0xB };
	uint8_t a[4] = { 198, 18, 0, 1 }, b[4] = { 198, 18, 0, 2 };
	memcpy(ep->src_mac, from ? mb : ma, 6);
	memcpy(ep->dst_mac, from ? ma : mb, 6);
	memcpy(ep->src_ip, from ? b : a, 4);
	memcpy(ep->dst_ip, from ? a : b, 4);
	ep->hop_limit = 64;
	ep->udp_sport = from ? 0xC001 : 0xC002;
	ep->pkey = 0xFFFF;
	ep->dest_qpn = dest_qpn;
}

static void rule(int side, int opcode, unsigned nth, enum inj_action a)
{
	struct inj_rule r = { 0 };
	r.qpn = side ? QB : QA;
	r.opcode = opcode;
	r.round = -1;
	r.nth = nth;
	r.count = 1;
	r.action = a;
	r.reorder_n = 1;
	snprintf(r.text, sizeof r.text, "test rule %d", (int)a);
	CHECK(inj_add(peer_rules(peers[side]), &r) == 0, "rule added");
}

static const struct peer_mr *mr_b;
static uint8_t payload[4096];
static unsigned long polled[2], posted;

static void post(int side, enum peer_op op, uint32_t len)
{
	struct peer_wr wr = { .wr_id = posted++, .op = op, .data = payload, .len = len };
	if (op != PEER_OP_SEND) {
		wr.remote = mr_b->addr;
		wr.rkey = mr_b->rkey;
	}
	char err[128];
	if (peer_post(peers[side], side ? QB : QA, &wr, now_ns, err, sizeof err) != 0)
		fprintf(stderr, "post: %s\n", err);
}

static void poll_all(void)
{
	struct peer_wc wc;
	for (int s = 0; s < 2; s++)
		while (peer_poll(peers[s], s ? QB : QA, &wc))
			polled[s]++;
}

/* One round: messages of every kind both ways, a scripted injection, and
 * rules that duplicate and reorder packets (NAKs, go-back-N). */
static void round_of_traffic(unsigned messages)
{
	uint8_t frame[256];
	struct roce_desc d;
	struct peer_qp_cfg cfg = { 0 };
	endpoint(&cfg.ep, 0, QB);
	for (unsigned i = 0; i < messages; i++) {
		post(0, PEER_OP_SEND, 64);
		post(1, PEER_OP_SEND, 64 + (i % 3) * 200);
		if (i % 4 == 0)
			post(0, PEER_OP_WRITE, 3000);
		if (i % 4 == 2)
			post(0, PEER_OP_READ, 2500);
		if (i % 16 == 5) {
			rule(0, -1, 1, INJ_DUPLICATE);
			rule(0, -1, 2, INJ_REORDER);
		}
		if (i % 8 == 3) {
			/* A scripted SEND Only the way the runner injects one. */
			roce_endpoint_desc(&cfg.ep, &d, 0x04, peer_qp_next_psn(peers[0], QA));
			d.payload = payload;
			d.payload_len = 64;
			long n = roce_build_frame(&d, frame, sizeof frame);
			if (n > 0) {
				peer_inject(peers[0], QA, frame, (size_t)n, now_ns, "scripted");
				peer_qp_set_next_psn(peers[0], QA, roce_psn_add(peer_qp_next_psn(peers[0], QA), 1));
			}
		}
		run(200 * US);
		poll_all();
		if (i % 16 == 15) {
			inj_clear(peer_rules(peers[0]));
		}
	}
	run(20 * MS);
	poll_all();
}

#endif

int main(void)
{
#ifdef SANITIZED
	printf("test_peer_alloc: SKIP: the sanitizer's allocator cannot be counted here\n");
	return 77;
#else
	/* The count can fail: an allocation while counting is seen. */
	counting = true;
	void *volatile probe = malloc(32);
	counting = false;
	CHECK(allocations == 1, "the interposed malloc counts (%lu)", allocations);
	free(probe);
	allocations = 0;

	link_q = calloc(LINK_SLOTS, sizeof *link_q);
	struct peer_io ia = { &sides[0], link_send, NULL }, ib = { &sides[1], link_send, NULL };
	peers[0] = peer_new(&ia);
	peers[1] = peer_new(&ib);
	struct peer_qp_cfg a = { ROCE_T_RC, QA, QB, 100, 5000, 1024, 0, 0, { 0 }, 2 * MS, 7, 7, 1 };
	struct peer_qp_cfg b = { ROCE_T_RC, QB, QA, 5000, 100, 1024, 0, 0, { 0 }, 2 * MS, 7, 7, 1 };
	endpoint(&a.ep, 0, QB);
	endpoint(&b.ep, 1, QA);
	CHECK(peer_qp_add(peers[0], &a) == 0 && peer_qp_add(peers[1], &b) == 0, "QPs added");
	mr_b = peer_mr_add(peers[1], 8192, PEER_ACC_WRITE | PEER_ACC_READ, 0x5a);
	for (size_t i = 0; i < sizeof payload; i++)
		payload[i] = (uint8_t)(i * 13);

	/* Warm-up: the pool fills with buffers of every size used. */
	round_of_traffic(64);
	uint64_t tx0 = peer_stats(peers[0])->tx + peer_stats(peers[1])->tx;
	unsigned long polled0 = polled[0] + polled[1];

	counting = true;
	round_of_traffic(2000);
	counting = false;

	uint64_t packets = peer_stats(peers[0])->tx + peer_stats(peers[1])->tx - tx0;
	unsigned long completions = polled[0] + polled[1] - polled0;
	const struct peer_stats *sa = peer_stats(peers[0]);
	printf("test_peer_alloc: %llu packets, %lu completions, %llu retransmissions, %llu NAKs: %lu allocations\n",
	       (unsigned long long)packets, completions, (unsigned long long)sa->retransmissions,
	       (unsigned long long)(peer_stats(peers[1])->naks_sent + sa->naks_sent), allocations);
	CHECK(packets > 10000, "the round sent %llu packets", (unsigned long long)packets);
	CHECK(completions > 5000, "the round completed %lu work requests", completions);
	CHECK(sa->retransmissions > 0, "the reordering rules caused retransmissions");
	CHECK(allocations == 0, "the per-packet paths allocated %lu times in %llu packets", allocations,
	      (unsigned long long)packets);

	peer_free(peers[0]);
	peer_free(peers[1]);
	free(link_q);
	return test_result("test_peer_alloc");
#endif
}
