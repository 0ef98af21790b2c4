/* The harness's JSON output: strings escaped per RFC 8259, numbers or null. */
#include <stdio.h>
#include "json.h"

void json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

void json_num(double v, int valid)
{
	if (valid)
		printf("%.6g", v);
	else
		fputs("null", stdout);
}
