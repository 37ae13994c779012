/* The annotated pcapng capture through wiretap (see capture.h). */
#include "capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <wiretap/wtap.h>
#include <wsutil/wslog.h>

#include "roce/roce.h"
#include "text.h"

struct capture {
	wtap_dumper *d;
	wtapng_iface_descriptions_t *idb;
	GArray *shb;
	uint64_t frames;
	int err;
	char *path; /* for messages */
};

static bool wtap_ready;

struct capture *capture_open(const char *path, const char *ifname, const char *description, char *err,
			     size_t errlen)
{
	if (!wtap_ready) {
		/* wiretap logs its own debugging to stderr unless told not to. */
		ws_log_set_level(LOG_LEVEL_WARNING);
		wtap_init(FALSE);
		wtap_ready = true;
	}
	struct capture *c = calloc(1, sizeof *c);
	if (!c)
		abort();
	c->path = g_strdup(path);

	wtap_block_t shb = wtap_block_create(WTAP_BLOCK_SECTION);
	struct utsname u;
	char os[300] = "Linux"; /* three uname fields of at most 65 bytes each */
	if (uname(&u) == 0)
		snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
	wtap_block_add_string_option(shb, OPT_SHB_OS, os, strlen(os));
	const char *app = "roce-tester (RoCEv2 conformance)";
	wtap_block_add_string_option(shb, OPT_SHB_USERAPPL, app, strlen(app));
	if (description)
		wtap_block_add_string_option(shb, OPT_COMMENT, description, strlen(description));
	c->shb = g_array_new(FALSE, FALSE, sizeof(wtap_block_t));
	g_array_append_val(c->shb, shb);

	wtap_block_t idb = wtap_block_create(WTAP_BLOCK_IF_ID_AND_INFO);
	wtapng_if_descr_mandatory_t *m = wtap_block_get_mandatory_data(idb);
	m->wtap_encap = WTAP_ENCAP_ETHERNET;
	m->time_units_per_second = 1000000000;
	m->tsprecision = WTAP_TSPREC_NSEC;
	m->snap_len = 65535;
	wtap_block_add_string_option(idb, OPT_IDB_NAME, ifname, strlen(ifname));
	const char *desc = "the tester's interface towards the DUT";
	wtap_block_add_string_option(idb, OPT_IDB_DESCRIPTION, desc, strlen(desc));
	wtap_block_add_uint8_option(idb, OPT_IDB_TSRESOL, 9);
	c->idb = g_new0(wtapng_iface_descriptions_t, 1);
	c->idb->interface_data = g_array_new(FALSE, FALSE, sizeof(wtap_block_t));
	g_array_append_val(c->idb->interface_data, idb);

	wtap_dump_params params = WTAP_DUMP_PARAMS_INIT;
	params.encap = WTAP_ENCAP_ETHERNET;
	params.snaplen = 65535;
	params.tsprec = WTAP_TSPREC_NSEC;
	params.shb_hdrs = c->shb;
	params.idb_inf = c->idb;
	int e = 0;
	gchar *info = NULL;
	c->d = wtap_dump_open(path, wtap_pcapng_file_type_subtype(), WTAP_UNCOMPRESSED, &params, &e, &info);
	if (!c->d) {
		text_printf(err, errlen, "%s: %s%s%s", path, wtap_strerror(e), info ? ": " : "", info ? info : "");
		g_free(info);
		capture_close(c, NULL, 0);
		return NULL;
	}
	return c;
}

uint64_t capture_write(struct capture *c, const uint8_t *frame, size_t len, uint64_t ts_ns, bool outbound,
		       const char *comment)
{
	if (!c || !c->d || c->err)
		return 0;
	wtap_rec rec;
	wtap_rec_init(&rec);
	rec.rec_type = REC_TYPE_PACKET;
	rec.presence_flags = WTAP_HAS_TS | WTAP_HAS_CAP_LEN | WTAP_HAS_INTERFACE_ID;
	rec.ts.secs = (time_t)(ts_ns / 1000000000ull);
	rec.ts.nsecs = (int)(ts_ns % 1000000000ull);
	rec.tsprec = WTAP_TSPREC_NSEC;
	rec.rec_header.packet_header.caplen = (guint32)len;
	rec.rec_header.packet_header.len = (guint32)len;
	rec.rec_header.packet_header.pkt_encap = WTAP_ENCAP_ETHERNET;
	rec.rec_header.packet_header.interface_id = 0;
	rec.block = wtap_block_create(WTAP_BLOCK_PACKET);
	wtap_block_add_uint32_option(rec.block, OPT_PKT_FLAGS,
				     outbound ? PACK_FLAGS_DIRECTION_OUTBOUND : PACK_FLAGS_DIRECTION_INBOUND);
	if (comment && *comment) {
		/* A pcapng option's length is 16 bits (padded to 4 bytes). */
		size_t n = strlen(comment);
		char *cut = NULL;
		if (n > CAPTURE_MAX_COMMENT) {
			cut = g_malloc(CAPTURE_MAX_COMMENT + 1);
			text_copy(cut, CAPTURE_MAX_COMMENT + 1, comment);
			n = strlen(cut);
		}
		wtap_block_add_string_option(rec.block, OPT_COMMENT, cut ? cut : comment, n);
		g_free(cut);
	}
	int e = 0;
	gchar *info = NULL;
	gboolean ok = wtap_dump(c->d, &rec, frame, &e, &info);
	g_free(info);
	wtap_rec_cleanup(&rec);
	if (!ok) {
		c->err = e ? e : -1;
		return 0;
	}
	return ++c->frames;
}

int capture_flush(struct capture *c)
{
	int e = 0;
	if (!c || !c->d)
		return -1;
	return wtap_dump_flush(c->d, &e) ? 0 : -1;
}

uint64_t capture_frames(const struct capture *c)
{
	return c ? c->frames : 0;
}

int capture_close(struct capture *c, char *err, size_t errlen)
{
	if (!c)
		return 0;
	int rc = 0;
	if (c->d) {
		int e = 0;
		gchar *info = NULL;
		if (!wtap_dump_close(c->d, NULL, &e, &info) || c->err) {
			if (err)
				text_printf(err, errlen, "%s: %s", c->path, wtap_strerror(e ? e : c->err));
			rc = -1;
		}
		g_free(info);
	}
	if (c->shb)
		wtap_block_array_free(c->shb);
	if (c->idb) {
		wtap_free_idb_info(c->idb);
	}
	g_free(c->path);
	free(c);
	return rc;
}
