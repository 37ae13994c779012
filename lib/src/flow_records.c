/*
 * The records the flow analysis keeps through roce_flow_env.record (flow.c
 * says what each holds): their keys, the registry listing every direction,
 * and the pair of hosts whose directions carried requests between them.
 */
#include <string.h>

#include "flow_internal.h"

void flow_make_key(struct key *k, uint8_t kind, uint8_t net, const uint8_t *src, const uint8_t *dst,
		   uint32_t qpn)
{
	memset(k, 0, sizeof *k);
	k->kind = kind;
	k->net = net;
	k->qpn = qpn;
	size_t alen = flow_net_addr_len(net);
	if (src)
		memcpy(k->src, src, alen);
	if (dst)
		memcpy(k->dst, dst, alen);
}

struct registry *flow_registry(const struct roce_flow_env *env)
{
	struct key rk;
	flow_make_key(&rk, KIND_REGISTRY, 0, NULL, NULL, 0);
	return env->record(env->ctx, &rk, sizeof rk, sizeof(struct registry));
}

struct pair *flow_pair_of(const struct roce_flow_env *env, uint8_t net, const uint8_t *src, const uint8_t *dst)
{
	struct key k;
	flow_make_key(&k, KIND_PAIR, net, src, dst, 0);
	return env->record(env->ctx, &k, sizeof k, sizeof(struct pair));
}
