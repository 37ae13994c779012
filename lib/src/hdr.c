/* Header and field descriptors, generated from fields.def. */
#include "roce/hdr.h"

#include <string.h>

static const struct roce_field_info field_table[ROCE_F_COUNT] = {
#define ROCE_HDR(...)
#define ROCE_FIELD(H, h, name, label, off, width, mask, disp, flags)                  \
	[ROCE_F_##H##_##name] = { ROCE_H_##H, #name, label, off, width, (uint64_t)(mask), \
				  __builtin_ctzll((uint64_t)(mask)), ROCE_DISP_##disp,          \
				  (flags) ? ROCE_FF_VIEW : 0 },
#define ROCE_BYTES(H, h, name, label, off, width, disp) \
	[ROCE_F_##H##_##name] = { ROCE_H_##H, #name, label, off, width, 0, 0, ROCE_DISP_##disp, 0 },
#define VIEW 1
#include "roce/fields.def"
#undef VIEW
#undef ROCE_HDR
#undef ROCE_FIELD
#undef ROCE_BYTES
};

static const struct roce_hdr_info hdr_table[ROCE_H_COUNT] = {
#define ROCE_HDR(ID, abbrev, name, size) [ROCE_H_##ID] = { #abbrev, name, size },
#define ROCE_FIELD(...)
#define ROCE_BYTES(...)
#include "roce/fields.def"
#undef ROCE_HDR
#undef ROCE_FIELD
#undef ROCE_BYTES
};

/* fields.def lists fields under their header, so each header's fields are
 * one contiguous run of field_table, starting with the field after its
 * ROCE_HDR line: FIRST_FIELD_<ID> counts the fields before it (the
 * _AGAIN enumerator steps the count back, so that markers take no index). */
enum first_field {
#define ROCE_HDR(ID, abbrev, name, size) FIRST_FIELD_##ID, FIRST_FIELD_##ID##_AGAIN = FIRST_FIELD_##ID - 1,
#define ROCE_FIELD(H, h, name, ...) FIELD_AT_##H##_##name,
#define ROCE_BYTES(H, h, name, ...) FIELD_AT_##H##_##name,
#include "roce/fields.def"
#undef ROCE_HDR
#undef ROCE_FIELD
#undef ROCE_BYTES
	FIELD_AT_END
};
_Static_assert((int)FIELD_AT_END == (int)ROCE_F_COUNT, "every field counted once");

static const unsigned short hdr_first_field[ROCE_H_COUNT + 1] = {
#define ROCE_HDR(ID, abbrev, name, size) [ROCE_H_##ID] = FIRST_FIELD_##ID,
#define ROCE_FIELD(...)
#define ROCE_BYTES(...)
#include "roce/fields.def"
#undef ROCE_HDR
#undef ROCE_FIELD
#undef ROCE_BYTES
	[ROCE_H_COUNT] = ROCE_F_COUNT,
};

void roce_hdr_fields(enum roce_hdr h, enum roce_field *first, unsigned *count)
{
	if ((unsigned)h >= ROCE_H_COUNT) {
		*first = ROCE_F_COUNT;
		*count = 0;
		return;
	}
	*first = (enum roce_field)hdr_first_field[h];
	*count = (unsigned)(hdr_first_field[h + 1] - hdr_first_field[h]);
}

const struct roce_hdr_info *roce_hdr_info(enum roce_hdr h)
{
	if ((unsigned)h >= ROCE_H_COUNT)
		return NULL;
	return &hdr_table[h];
}

const struct roce_field_info *roce_field_info(enum roce_field f)
{
	if ((unsigned)f >= ROCE_F_COUNT)
		return NULL;
	return &field_table[f];
}

enum roce_field roce_field_by_name(const char *name)
{
	const char *dot = strchr(name, '.');
	if (!dot)
		return ROCE_F_COUNT;
	size_t hlen = (size_t)(dot - name);
	for (unsigned h = 0; h < ROCE_H_COUNT; h++) {
		if (strlen(hdr_table[h].abbrev) != hlen || memcmp(hdr_table[h].abbrev, name, hlen))
			continue;
		enum roce_field first;
		unsigned count;
		roce_hdr_fields((enum roce_hdr)h, &first, &count);
		for (unsigned f = first; f < first + count; f++)
			if (!strcmp(field_table[f].abbrev, dot + 1))
				return (enum roce_field)f;
	}
	return ROCE_F_COUNT;
}

uint64_t roce_field_get(const uint8_t *hdr, enum roce_field f)
{
	const struct roce_field_info *fi = &field_table[f];
	if (!fi->mask)
		return 0;
	return (roce_be_load(hdr + fi->offset, fi->width) & fi->mask) >> fi->shift;
}

void roce_field_set(uint8_t *hdr, enum roce_field f, uint64_t value)
{
	const struct roce_field_info *fi = &field_table[f];
	if (!fi->mask)
		return;
	uint64_t w = roce_be_load(hdr + fi->offset, fi->width);
	w = (w & ~fi->mask) | ((value << fi->shift) & fi->mask);
	roce_be_store(hdr + fi->offset, fi->width, w);
}
