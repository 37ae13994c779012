/*
 * Preloaded into tshark by check_conv_filters.py: the display filter that
 * Statistics > Conversations' "Apply as Filter" makes of each row the
 * rocev2 plugin adds, from Wireshark's own get_conversation_filter() (so
 * with the plugin's filter names and address types, as the GUI gets
 * them), which tshark has no way to print.
 *
 * It stands in for add_conversation_table_data() (the plugin's call, the
 * real one is called first), and at exit writes one line per row to
 * stdout: "conv-filter", address A and B as Wireshark writes them, the
 * ports, the address type's number, the row's frames, then the filters A<->B, A->B and A<-B, tab
 * separated. Built against each release's headers (the layout of
 * conv_item_t differs).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <epan/address_types.h>
#include <epan/conversation_table.h>
#include <epan/to_str.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*add_fn)(conv_hash_t *, const address *, const address *, uint32_t, uint32_t, int, int, nstime_t *,
		       nstime_t *, ct_dissector_info_t *, conversation_type);

struct row {
	char *filters[3];
	uint64_t frames;
};

static GHashTable *rows; /* "A\tB\tportA\tportB\ttype" -> struct row */

static void note(conv_item_t *c)
{
	char *a = address_to_str(NULL, &c->src_address), *b = address_to_str(NULL, &c->dst_address);
	char *key = g_strdup_printf("%s\t%s\t%u\t%u\t%d", a, b, c->src_port, c->dst_port, c->src_address.type);
	wmem_free(NULL, a);
	wmem_free(NULL, b);
	struct row *r = g_hash_table_lookup(rows, key);
	if (!r) {
		r = g_new0(struct row, 1);
		conv_direction_e dirs[3] = { CONV_DIR_A_TO_FROM_B, CONV_DIR_A_TO_B, CONV_DIR_A_FROM_B };
		for (int i = 0; i < 3; i++) {
			char *f = get_conversation_filter(c, dirs[i]);
			r->filters[i] = g_strdup(f);
			g_free(f);
		}
		g_hash_table_insert(rows, key, r);
	} else {
		g_free(key);
	}
	r->frames = c->tx_frames + c->rx_frames;
}

void add_conversation_table_data(conv_hash_t *ch, const address *src, const address *dst, guint32 src_port,
				 guint32 dst_port, int num_frames, int num_bytes, nstime_t *ts, nstime_t *abs_ts,
				 ct_dissector_info_t *ct_info, conversation_type ctype)
{
	static add_fn real;
	if (!real)
		real = (add_fn)dlsym(RTLD_NEXT, "add_conversation_table_data");
	if (!real)
		abort();
	real(ch, src, dst, src_port, dst_port, num_frames, num_bytes, ts, abs_ts, ct_info, ctype);
	if (!rows)
		rows = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; ch->conv_array && i < ch->conv_array->len; i++)
		note(&g_array_index(ch->conv_array, conv_item_t, i));
}

__attribute__((destructor)) static void write_rows(void)
{
	if (!rows)
		return;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, rows);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct row *r = v;
		printf("conv-filter\t%s\t%llu\t%s\t%s\t%s\n", (char *)k, (unsigned long long)r->frames, r->filters[0],
		       r->filters[1], r->filters[2]);
	}
	fflush(stdout);
}
