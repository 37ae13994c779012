/*
 * Multicast: a UD QP attached to a group (attach_mcast, detach_mcast), or
 * joined to it through the device's connection manager, which makes the
 * host report the membership with IGMP or MLD (cm_join, cm_leave). The
 * session remembers each QP's groups and undoes them before the QP is
 * destroyed: a device refuses to destroy an attached QP.
 *
 * attach_mcast hands the device what the verb would get, so that the
 * device's own answer is what a case judges: a GID that is not a group
 * (the device should refuse it, IBV-MCAST-GID), and a group the QP is
 * attached to already (still one member, ibv_attach_mcast(3)).
 */
#include "methods.h"
#include "roce/gid.h"
#include "roce/mcast.h"

#include <string.h>

/* params.<name>: a GID (an IPv4 address mapped). */
static bool param_gid(struct req *r, const char *name, uint8_t gid[16])
{
	const char *s = param_string(r, name, true);
	if (!s)
		return false;
	if (!roce_gid_parse(s, gid))
		return req_fail(r, AE_BAD_REQUEST, "params.%s: '%.60s' is not an IPv6 or IPv4 address", name, s);
	return true;
}

/* params.<name>: a multicast group, as a GID (an IPv4 group mapped). */
static bool param_group(struct req *r, const char *name, uint8_t gid[16])
{
	if (!param_gid(r, name, gid))
		return false;
	const char *s = param_string(r, name, true);
	if (!roce_gid_is_multicast(gid))
		return req_fail(r, AE_BAD_REQUEST,
				"params.%s: '%.60s' is not a multicast group (IPv4 224.0.0.0/4, IPv6 ff00::/8)", name, s);
	return true;
}

/* The QP of params.qp, which must be UD. */
static struct handle *ud_qp(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (h && h->qp_type != BE_QPT_UD) {
		req_fail(r, AE_BAD_REQUEST, "params.qp: QP %u is %s; only UD QPs join multicast groups", h->id,
			 h->qp_type == BE_QPT_RC ? "RC" : "UC");
		return NULL;
	}
	return h;
}

static int member_index(const struct handle *qp, const uint8_t gid[16])
{
	for (guint i = 0; qp->mcast && i < qp->mcast->len; i++)
		if (memcmp(g_array_index(qp->mcast, struct mcast_member, i).gid, gid, 16) == 0)
			return (int)i;
	return -1;
}

static void add_member(struct handle *qp, const struct mcast_member *m)
{
	if (!qp->mcast)
		qp->mcast = g_array_new(FALSE, TRUE, sizeof(struct mcast_member));
	g_array_append_val(qp->mcast, *m);
}

/* The group of a GID as the CM takes it: 16 bytes, IPv4 in the first 4. */
static int group_ip(const uint8_t gid[16], uint8_t ip[16])
{
	memset(ip, 0, 16);
	return roce_gid_to_ip(gid, ip);
}

static bool already_member(struct req *r, struct handle *qp, const uint8_t gid[16], const char *name)
{
	int i = member_index(qp, gid);
	if (i < 0)
		return false;
	char g[64];
	roce_gid_format(gid, g, sizeof g);
	req_fail(r, AE_INVALID_STATE, "params.%s: QP %u is already a member of group %s (by %s)", name, qp->id, g,
		 g_array_index(qp->mcast, struct mcast_member, i).cm ? "cm_join" : "attach_mcast");
	return true;
}

/* The member a detach or a leave undoes; NULL (error set) when the QP
 * is not one, or became one the other way. */
static struct mcast_member *find_member(struct req *r, struct handle *qp, const uint8_t gid[16], const char *name,
					bool cm)
{
	int i = member_index(qp, gid);
	char g[64];
	roce_gid_format(gid, g, sizeof g);
	if (i < 0) {
		req_fail(r, AE_INVALID_STATE, "params.%s: QP %u is not a member of group %s", name, qp->id, g);
		return NULL;
	}
	struct mcast_member *m = &g_array_index(qp->mcast, struct mcast_member, i);
	if (m->cm != cm) {
		req_fail(r, AE_INVALID_STATE, "params.%s: QP %u %s group %s; undo that with %s", name, qp->id,
			 m->cm ? "joined" : "was attached to", g, m->cm ? "cm_leave" : "detach_mcast");
		return NULL;
	}
	return m;
}

static void remove_member(struct handle *qp, const struct mcast_member *m)
{
	g_array_remove_index(qp->mcast, (guint)(m - &g_array_index(qp->mcast, struct mcast_member, 0)));
}

static bool have(struct req *r, bool ok, const char *what)
{
	return ok ? true : req_fail(r, AE_UNSUPPORTED, "the %s backend has no %s", OPS(r)->name, what);
}

void method_attach_mcast(struct req *r)
{
	struct handle *qp = ud_qp(r);
	struct mcast_member m = { 0 };
	uint32_t lid;
	if (!qp || !param_gid(r, "gid", m.gid) || !param_u32(r, "lid", false, 0, 0xFFFF, &lid) ||
	    !have(r, OPS(r)->attach_mcast && OPS(r)->detach_mcast, "multicast (attach_mcast)"))
		return;
	/* Attached already: the device sees the verb again, and the QP stays
	 * one member; a CM join is undone by cm_leave only. */
	int i = member_index(qp, m.gid);
	if (i >= 0 && g_array_index(qp->mcast, struct mcast_member, i).cm) {
		already_member(r, qp, m.gid, "gid");
		return;
	}
	m.lid = (uint16_t)lid;
	struct be_error err = { 0 };
	if (OPS(r)->attach_mcast(qp->obj, m.gid, m.lid, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	if (i < 0)
		add_member(qp, &m);
}

void method_detach_mcast(struct req *r)
{
	struct handle *qp = ud_qp(r);
	uint8_t gid[16];
	uint32_t lid;
	if (!qp || !param_gid(r, "gid", gid) || !param_u32(r, "lid", false, 0, 0xFFFF, &lid) ||
	    !have(r, OPS(r)->detach_mcast != NULL, "multicast (detach_mcast)"))
		return;
	struct mcast_member *m = find_member(r, qp, gid, "gid", false);
	if (!m)
		return;
	struct be_error err = { 0 };
	if (OPS(r)->detach_mcast(qp->obj, gid, (uint16_t)lid, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	remove_member(qp, m);
}

void method_cm_join(struct req *r)
{
	struct handle *qp = ud_qp(r);
	struct mcast_member m = { .cm = true };
	if (!qp || !param_group(r, "group", m.gid) ||
	    !have(r, OPS(r)->cm_join && OPS(r)->cm_leave, "connection manager that joins multicast groups") ||
	    already_member(r, qp, m.gid, "group"))
		return;
	uint8_t ip[16];
	m.ip_version = group_ip(m.gid, ip);
	struct be_mcast_join out;
	memset(&out, 0, sizeof out);
	struct be_error err = { 0 };
	if (OPS(r)->cm_join(qp->obj, m.ip_version, ip, &out, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	add_member(qp, &m);
	char g[64];
	roce_gid_format(out.mgid, g, sizeof g);
	result_str(r, "mgid", g);
	result_u64(r, "qkey", out.qkey);
}

void method_cm_leave(struct req *r)
{
	struct handle *qp = ud_qp(r);
	uint8_t gid[16];
	if (!qp || !param_group(r, "group", gid) ||
	    !have(r, OPS(r)->cm_leave != NULL, "connection manager that joins multicast groups"))
		return;
	struct mcast_member *m = find_member(r, qp, gid, "group", true);
	if (!m)
		return;
	uint8_t ip[16];
	group_ip(gid, ip);
	struct be_error err = { 0 };
	if (OPS(r)->cm_leave(qp->obj, m->ip_version, ip, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	remove_member(qp, m);
}

bool session_qp_leave_groups(struct session *s, struct handle *qp, struct be_error *err)
{
	const struct backend_ops *ops = s->agent->be->ops;
	bool ok = true;
	while (qp->mcast && qp->mcast->len) {
		struct mcast_member *m = &g_array_index(qp->mcast, struct mcast_member, qp->mcast->len - 1);
		struct be_error e = { 0 };
		int rc = 0;
		if (m->cm && ops->cm_leave) {
			uint8_t ip[16];
			group_ip(m->gid, ip);
			rc = ops->cm_leave(qp->obj, m->ip_version, ip, &e);
		} else if (!m->cm && ops->detach_mcast) {
			rc = ops->detach_mcast(qp->obj, m->gid, m->lid, &e);
		}
		if (rc && ok) {
			*err = e;
			ok = false;
		}
		g_array_remove_index(qp->mcast, qp->mcast->len - 1);
	}
	return ok;
}
