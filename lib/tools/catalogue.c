/*
 * roce-catalogue: what libroce's tables hold, for documentation and for
 * the tests of the parts built on it (which need no other program).
 *
 *   roce-catalogue rules --markdown     the rule catalogue (docs/rules.md)
 *   roce-catalogue fields               every header field, as "bth.psn"
 *   roce-catalogue opcodes              every defined opcode: number, name
 */
#include <stdio.h>
#include <string.h>

#include "roce/roce.h"

static int usage(void)
{
	fputs("usage: roce-catalogue rules --markdown | fields | opcodes\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "rules") && argc == 3 && !strcmp(argv[2], "--markdown")) {
		roce_rules_markdown(stdout);
	} else if (!strcmp(argv[1], "fields") && argc == 2) {
		for (unsigned f = 0; f < ROCE_F_COUNT; f++) {
			const struct roce_field_info *fi = roce_field_info((enum roce_field)f);
			printf("%s.%s\n", roce_hdr_info(fi->hdr)->abbrev, fi->abbrev);
		}
	} else if (!strcmp(argv[1], "opcodes") && argc == 2) {
		for (unsigned op = 0; op < 256; op++)
			if (roce_opcode_defined((uint8_t)op))
				printf("0x%02x %s\n", op, roce_opcode((uint8_t)op)->name);
	} else {
		return usage();
	}
	return ferror(stdout) ? 1 : 0;
}
