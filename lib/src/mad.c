/* MAD and CM layouts (mad.def) and the facts that go with them. */
#include "roce/mad.h"
#include "roce/transport.h"

#include <string.h>

static const struct roce_mad_hdr_info hdr_table[ROCE_MH_COUNT] = {
#define ROCE_MAD_HDR(ID, abbrev, name, size) [ROCE_MH_##ID] = { #abbrev, name, size },
#define ROCE_MAD_FIELD(...)
#define ROCE_MAD_BYTES(...)
#include "roce/mad.def"
#undef ROCE_MAD_HDR
#undef ROCE_MAD_FIELD
#undef ROCE_MAD_BYTES
};

static const struct roce_mad_field_info field_table[ROCE_MF_COUNT] = {
#define ROCE_MAD_HDR(...)
#define ROCE_MAD_FIELD(H, h, name, label, off, width, mask, disp) \
	[ROCE_MF_##H##_##name] = { ROCE_MH_##H, #name, label, off, width, mask, ROCE_DISP_##disp },
#define ROCE_MAD_BYTES(H, h, name, label, off, width, disp) \
	[ROCE_MF_##H##_##name] = { ROCE_MH_##H, #name, label, off, width, 0, ROCE_DISP_##disp },
#include "roce/mad.def"
#undef ROCE_MAD_HDR
#undef ROCE_MAD_FIELD
#undef ROCE_MAD_BYTES
};

uint8_t *roce_cm_mad_init(uint8_t *mad, uint16_t attr_id, uint64_t tid)
{
	memset(mad, 0, ROCE_MAD_LEN);
	roce_mad_set_base_version(mad, ROCE_MAD_BASE_VERSION);
	roce_mad_set_mgmt_class(mad, ROCE_MAD_CLASS_CM);
	roce_mad_set_class_version(mad, ROCE_MAD_CM_CLASS_VERSION);
	roce_mad_set_method(mad, ROCE_MAD_METHOD_SEND);
	roce_mad_set_tid(mad, tid);
	roce_mad_set_attr_id(mad, attr_id);
	return mad + ROCE_MAD_HDR_LEN;
}

void roce_ipcm_set_addrs(uint8_t *ipcm, int ip_version, const uint8_t *src, const uint8_t *dst)
{
	size_t n = ip_version == 4 ? 4 : 16, at = ROCE_GID_LEN - n;
	roce_ipcm_set_ipv(ipcm, (uint64_t)ip_version);
	memset(roce_ipcm_src(ipcm), 0, ROCE_GID_LEN);
	memset(roce_ipcm_dst(ipcm), 0, ROCE_GID_LEN);
	memcpy(roce_ipcm_src(ipcm) + at, src, n);
	memcpy(roce_ipcm_dst(ipcm) + at, dst, n);
}

void roce_gsi_desc(const struct roce_endpoint *ep, struct roce_desc *d, uint32_t psn, const uint8_t *mad)
{
	roce_endpoint_desc(ep, d, ROCE_MAD_OPCODE, psn);
	uint8_t *deth = roce_desc_hdr(d, ROCE_H_DETH);
	roce_deth_set_qkey(deth, ROCE_GSI_QKEY);
	roce_deth_set_srcqp(deth, ROCE_QP1);
	d->payload = mad;
	d->payload_len = ROCE_MAD_LEN;
}

const struct roce_mad_hdr_info *roce_mad_hdr_info(enum roce_mad_hdr h)
{
	return (unsigned)h < ROCE_MH_COUNT ? &hdr_table[h] : NULL;
}

const struct roce_mad_field_info *roce_mad_field_info(enum roce_mad_field f)
{
	return (unsigned)f < ROCE_MF_COUNT ? &field_table[f] : NULL;
}

void roce_mad_hdr_fields(enum roce_mad_hdr h, enum roce_mad_field *first, unsigned *count)
{
	unsigned i = 0;
	while (i < ROCE_MF_COUNT && field_table[i].hdr != h)
		i++;
	*first = (enum roce_mad_field)i;
	unsigned n = 0;
	while (i + n < ROCE_MF_COUNT && field_table[i + n].hdr == h)
		n++;
	*count = n;
}

enum roce_mad_field roce_mad_field_by_name(const char *name)
{
	const char *dot = strchr(name, '.');
	if (!dot)
		return ROCE_MF_COUNT;
	size_t hl = (size_t)(dot - name);
	for (unsigned i = 0; i < ROCE_MF_COUNT; i++) {
		const char *ha = hdr_table[field_table[i].hdr].abbrev;
		if (strlen(ha) == hl && !strncmp(ha, name, hl) && !strcmp(field_table[i].abbrev, dot + 1))
			return (enum roce_mad_field)i;
	}
	return ROCE_MF_COUNT;
}

unsigned roce_mad_hdr_base(enum roce_mad_hdr h)
{
	return h == ROCE_MH_MAD ? 0 : h == ROCE_MH_IPCM ? ROCE_CM_REQ_PRIVATE_OFF : ROCE_MAD_HDR_LEN;
}

bool roce_mad_get(const uint8_t *mad, enum roce_mad_field f, uint64_t *v)
{
	const struct roce_mad_field_info *fi = roce_mad_field_info(f);
	if (!fi || !fi->mask)
		return false;
	const uint8_t *p = mad + roce_mad_hdr_base(fi->hdr) + fi->offset;
	*v = (roce_be_load(p, fi->width) & fi->mask) >> __builtin_ctzll(fi->mask);
	return true;
}

bool roce_mad_put(uint8_t *mad, enum roce_mad_field f, uint64_t v)
{
	const struct roce_mad_field_info *fi = roce_mad_field_info(f);
	if (!fi || !fi->mask)
		return false;
	uint8_t *p = mad + roce_mad_hdr_base(fi->hdr) + fi->offset;
	uint64_t w = roce_be_load(p, fi->width);
	unsigned sh = (unsigned)__builtin_ctzll(fi->mask);
	roce_be_store(p, fi->width, (w & ~fi->mask) | ((v << sh) & fi->mask));
	return true;
}

bool roce_pkt_is_mad(const struct roce_pkt *p)
{
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	return bth && p->op && p->op->transport == ROCE_T_UD && p->op->kind == ROCE_K_SEND &&
	       roce_bth_destqp(bth) == ROCE_QP1 && p->payload_len >= ROCE_MAD_HDR_LEN;
}

enum roce_mad_hdr roce_cm_msg(uint16_t attr_id)
{
	switch (attr_id) {
	case ROCE_CM_REQ: return ROCE_MH_CM_REQ;
	case ROCE_CM_MRA: return ROCE_MH_CM_MRA;
	case ROCE_CM_REJ: return ROCE_MH_CM_REJ;
	case ROCE_CM_REP: return ROCE_MH_CM_REP;
	case ROCE_CM_RTU: return ROCE_MH_CM_RTU;
	case ROCE_CM_DREQ: return ROCE_MH_CM_DREQ;
	case ROCE_CM_DREP: return ROCE_MH_CM_DREP;
	case ROCE_CM_SIDR_REQ: return ROCE_MH_CM_SIDR_REQ;
	case ROCE_CM_SIDR_REP: return ROCE_MH_CM_SIDR_REP;
	case ROCE_CM_LAP: return ROCE_MH_CM_LAP;
	case ROCE_CM_APR: return ROCE_MH_CM_APR;
	default: return ROCE_MH_COUNT;
	}
}

const char *roce_cm_msg_name(uint16_t attr_id)
{
	switch (attr_id) {
	case ROCE_CM_REQ: return "REQ";
	case ROCE_CM_MRA: return "MRA";
	case ROCE_CM_REJ: return "REJ";
	case ROCE_CM_REP: return "REP";
	case ROCE_CM_RTU: return "RTU";
	case ROCE_CM_DREQ: return "DREQ";
	case ROCE_CM_DREP: return "DREP";
	case ROCE_CM_SIDR_REQ: return "SIDR REQ";
	case ROCE_CM_SIDR_REP: return "SIDR REP";
	case ROCE_CM_LAP: return "LAP";
	case ROCE_CM_APR: return "APR";
	default: return NULL;
	}
}

unsigned roce_ib_mtu_bytes(unsigned code)
{
	return code >= 1 && code <= 5 ? 128u << code : 0;
}

const char *roce_mad_class_name(unsigned mgmt_class)
{
	switch (mgmt_class) {
#define ROCE_MAD_CLASS_NAME(SYM, value, name) \
	case (value): return (name);
		ROCE_MAD_CLASSES(ROCE_MAD_CLASS_NAME)
#undef ROCE_MAD_CLASS_NAME
	default: return NULL;
	}
}
