/* The port's RoCEv2 frames kept out of the local IP stack (see
 * rawio_tcx.h): a ten-instruction tc ingress program, loaded through the
 * bpf() system call and attached as a tcx link. */
#define _GNU_SOURCE
#include "rawio_tcx.h"
#include "roce/packet.h"
#include "text.h"

#include <errno.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* From Linux 6.6's uapi, for build hosts with older kernel headers
 * (Debian 12's are 6.1); the kernel that runs the tester decides. */
#define TCX_INGRESS_ATTACH 46 /* BPF_TCX_INGRESS */
#define TCX_VERDICT_NEXT (-1) /* TCX_NEXT: on to the next program, then the stack */
#define TCX_VERDICT_DROP 2    /* TCX_DROP */

static long bpf_call(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof *attr);
}

#define INSN(c, d, s, o, i) { .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) }
/* r0 = the frame's big-endian half-word or byte at offset k (the data
 * starts at the Ethernet header at tc ingress); a load past the end ends
 * the program with 0, TCX_PASS: the frame goes on to the stack. */
#define LD_ABS_H(k) INSN(BPF_LD | BPF_ABS | BPF_H, 0, 0, 0, k)
#define LD_ABS_B(k) INSN(BPF_LD | BPF_ABS | BPF_B, 0, 0, 0, k)
/* r0 = the half-word at r7 + k. */
#define LD_IND_H(k) INSN(BPF_LD | BPF_IND | BPF_H, 0, 7, 0, k)
#define JNE(k, off) INSN(BPF_JMP | BPF_JNE | BPF_K, 0, 0, off, k)
#define JEQ(k, off) INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, off, k)
#define JSET(k, off) INSN(BPF_JMP | BPF_JSET | BPF_K, 0, 0, off, k)
#define ALU_K(op, d, k) INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, k)
#define MOV_X(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define RET(k) ALU_K(BPF_MOV, 0, k), INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* Drops an unfragmented IPv4 or IPv6 UDP datagram to port 4791 (an IPv6
 * one whose UDP header follows the fixed header, as RoCEv2's does);
 * everything else goes on. */
static const struct bpf_insn drop_rocev2[] = {
	/* 0 */ MOV_X(6, 1), /* LD_ABS and LD_IND read the skb in r6 */
	/* 1 */ LD_ABS_H(ROCE_ETH_TYPE_OFF),
	/* 2 */ JEQ(ROCE_ETHERTYPE_IPV6, 13), /* to 16 */
	/* 3 */ JNE(ROCE_ETHERTYPE_IPV4, 16),   /* to 20 */
	/* IPv4: UDP, not a fragment, the header's length from its IHL. */
	/* 4 */ LD_ABS_B(ROCE_ETH_LEN + 9),
	/* 5 */ JNE(ROCE_IP_PROTO_UDP, 14),
	/* 6 */ LD_ABS_H(ROCE_ETH_LEN + 6),
	/* 7 */ JSET(0x3fff, 12), /* more fragments, or an offset */
	/* 8 */ LD_ABS_B(ROCE_ETH_LEN),
	/* 9 */ ALU_K(BPF_AND, 0, 0x0f),
	/* 10 */ ALU_K(BPF_LSH, 0, 2),
	/* 11 */ MOV_X(7, 0),
	/* 12 */ LD_IND_H(ROCE_ETH_LEN + 2),
	/* 13 */ JNE(ROCE_UDP_PORT, 6),
	/* 14 */ RET(TCX_VERDICT_DROP),
	/* IPv6: next header UDP. */
	/* 16 */ LD_ABS_B(ROCE_ETH_LEN + 6),
	/* 17 */ JNE(ROCE_IP_PROTO_UDP, 2),
	/* 18 */ LD_ABS_H(ROCE_ETH_LEN + 40 + 2),
	/* 19 */ JEQ(ROCE_UDP_PORT, -6), /* to 14 */
	/* 20 */ RET(TCX_VERDICT_NEXT),
};

static int load(char *log, size_t loglen)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	a.expected_attach_type = TCX_INGRESS_ATTACH;
	a.insns = (uintptr_t)drop_rocev2;
	a.insn_cnt = sizeof drop_rocev2 / sizeof drop_rocev2[0];
	a.license = (uintptr_t) "Dual BSD/GPL";
	if (log) {
		a.log_buf = (uintptr_t)log;
		a.log_size = (uint32_t)loglen;
		a.log_level = 1;
	}
	return (int)bpf_call(BPF_PROG_LOAD, &a);
}

int rawio_tcx_drop_rocev2(const char *ifname, char *why, size_t whylen)
{
	unsigned ifindex = if_nametoindex(ifname);
	if (!ifindex) {
		text_printf(why, whylen, "%s: %s", ifname, strerror(errno));
		return -1;
	}
	int prog = load(NULL, 0);
	if (prog < 0) {
		/* Again, with the verifier's log: its last line says why. */
		int e = errno;
		char log[16384] = "";
		if (load(log, sizeof log) < 0)
			e = errno;
		size_t n = strlen(log);
		while (n && log[n - 1] == '\n')
			log[--n] = '\0';
		const char *last = strrchr(log, '\n');
		text_printf(why, whylen, "loading the tc program: %s%s%s", strerror(e), log[0] ? ": " : "",
			    last ? last + 1 : log);
		return -1;
	}
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.link_create.prog_fd = (uint32_t)prog;
	a.link_create.target_ifindex = ifindex;
	a.link_create.attach_type = TCX_INGRESS_ATTACH;
	int link = (int)bpf_call(BPF_LINK_CREATE, &a);
	int e = errno;
	close(prog); /* the link holds the program */
	if (link < 0) {
		text_printf(why, whylen, "attaching at tcx ingress (Linux 6.6 or later): %s", strerror(e));
		return -1;
	}
	return link;
}
