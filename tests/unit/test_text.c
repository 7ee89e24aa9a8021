/* Unit tests of util/text (the escape every renderer prints run-file strings
 * through) and util/json's strings and numbers: whatever bytes come in, the
 * text has no raw control character and the JSON is valid UTF-8. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "util/json.h"
#include "util/text.h"

static void test_decode(void)
{
	uint32_t cp = 0;
	CHECK_INT(fs_text_utf8_decode((const unsigned char *)"A", 1, &cp), 1);
	CHECK_INT(cp, 'A');
	CHECK_INT(fs_text_utf8_decode((const unsigned char *)"\xc2\xb5", 2, &cp), 2);
	CHECK_INT(cp, 0xb5);
	CHECK_INT(fs_text_utf8_decode((const unsigned char *)"\xe2\x80\x94", 3, &cp), 3);
	CHECK_INT(cp, 0x2014);
	CHECK_INT(fs_text_utf8_decode((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
	CHECK_INT(cp, 0x1f600);
	const char *bad[] = {
		"\x80",             /* a lone continuation byte */
		"\xc0\xaf",         /* overlong '/' */
		"\xe0\x80\xaf",     /* overlong, 3 bytes */
		"\xed\xa0\x80",     /* a surrogate, U+D800 */
		"\xf4\x90\x80\x80", /* U+110000, beyond Unicode */
		"\xf5\x80\x80\x80", "\xff", "\xc2", /* cut short */
		"\xe2\x28\xa1",     /* a bad continuation */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		size_t n = 0;
		while (bad[i][n])
			n++;
		CHECK_INT(fs_text_utf8_decode((const unsigned char *)bad[i], n, &cp), 0);
	}
	CHECK_INT(fs_text_utf8_decode((const unsigned char *)"\xe2\x82", 2, &cp), 0); /* n too small */
}

static void test_escape(void)
{
	char b[256];
	CHECK_STR(fs_text_escape(b, sizeof b, "plain /data/x.npy µs · —"), "plain /data/x.npy µs · —");
	CHECK_STR(fs_text_escape(b, sizeof b, "\x1b[31mred\x1b]0;t\x07"), "\\x1b[31mred\\x1b]0;t\\x07");
	CHECK_STR(fs_text_escape(b, sizeof b, "a\nb\tc\rd\x7f"), "a\\x0ab\\x09c\\x0dd\\x7f");
	CHECK_STR(fs_text_escape(b, sizeof b, "c1 \xc2\x9b" "2J"), "c1 \\u009b2J");
	CHECK_STR(fs_text_escape(b, sizeof b, "bidi \xe2\x80\xae" "x"), "bidi \\u202ex");
	CHECK_STR(fs_text_escape(b, sizeof b, "bad \xff\xfe!"), "bad \xef\xbf\xbd\xef\xbf\xbd!");
	CHECK_STR(fs_text_escape(b, sizeof b, "a\\x1b"), "a\\\\x1b"); /* a literal backslash stays unambiguous */
	CHECK_STR(fs_text_escape(b, sizeof b, NULL), "");
	/* cut only between characters and escapes */
	CHECK_STR(fs_text_escape(b, 6, "ab\x1b" "cd"), "ab");
	CHECK_STR(fs_text_escape(b, 4, "a\xc2\xb5" "b"), "a\xc2\xb5");
	CHECK_STR(fs_text_escape(b, 3, "a\xc2\xb5" "b"), "a");
	CHECK_STR(fs_text_escape(b, 1, "abc"), "");
	/* every byte value: the output has no C0, DEL or raw C1 byte, and decodes */
	char all[256], out[256 * 6];
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	fs_text_escape(out, sizeof out, all);
	const unsigned char *p = (const unsigned char *)out;
	size_t n = strlen(out);
	bool clean = true;
	while (n > 0) {
		uint32_t cp;
		size_t len = fs_text_utf8_decode(p, n, &cp);
		if (len == 0 || fs_text_is_control(cp))
			clean = false;
		p += len ? len : 1;
		n -= len ? len : 1;
	}
	CHECK(clean);
}

/* What the JSON writer made of a document, as a string the caller frees. */
static char *json_of(const char *value, double number)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct fs_json j;
	fs_json_init(&j, f);
	fs_json_object(&j, NULL);
	fs_json_string(&j, "s", value);
	fs_json_number(&j, "n", number);
	fs_json_end(&j);
	fclose(f);
	return buf;
}

static void test_json(void)
{
	char *s = json_of("\x1b[2J\"q\"\\ \n\t\x7f \xc2\x9b \xe2\x80\xa8 ok µ", 1.5);
	CHECK_STR(s, "{\"s\":\"\\u001b[2J\\\"q\\\"\\\\ \\n\\t\\u007f \\u009b \\u2028 ok µ\",\"n\":1.5}\n");
	free(s);
	s = json_of("bad \xff \xc0\xaf \xed\xa0\x80 end", NAN);
	CHECK_STR(s, "{\"s\":\"bad \\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd end\",\"n\":null}\n");
	free(s);
	s = json_of(NULL, INFINITY);
	CHECK_STR(s, "{\"s\":null,\"n\":null}\n");
	free(s);
	s = json_of("", -INFINITY);
	CHECK_STR(s, "{\"s\":\"\",\"n\":null}\n");
	free(s);
}

int main(void)
{
	test_decode();
	test_escape();
	test_json();
	return check_exit("test_text");
}
