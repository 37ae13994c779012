/*
 * roce-case-arguments: docs/case-arguments.md, every case-language
 * statement's arguments as the parser's tables hold them (forms, words,
 * defaults). Not installed: the documentation's generator and its test.
 *
 *   roce-case-arguments > docs/case-arguments.md
 */
#include <stdio.h>

#include "caselang.h"

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fputs("usage: roce-case-arguments (writes docs/case-arguments.md to standard output)\n", stderr);
		return 2;
	}
	cl_arguments_markdown(stdout);
	return ferror(stdout) ? 1 : 0;
}
