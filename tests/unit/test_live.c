/* The fixed-width cells of watch and top (cmd/live.h): a number fitted to
 * its column loses decimals, then takes a k/M/G/T suffix, never a width
 * more; a name is cut to its column with a ~, never inside a UTF-8
 * sequence. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cmd/live.h"

static void fit(double x, int width, int prec, const char *want)
{
	char out[32];
	CHECK_STR(fs_live_fit(out, sizeof out, x, width, prec), want);
	CHECK_INT((int)strlen(out), width);
}

static void cut(const char *s, int width, const char *want)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%s", s);
	CHECK_STR(fs_live_cut(buf, width), want);
}

int main(void)
{
	fit(105.04, 5, 1, "105.0");
	fit(9.04, 3, 1, "9.0");
	fit(40.2, 3, 1, " 40");
	fit(100, 3, 1, "100");
	fit(1234.6, 5, 1, " 1235");
	fit(0, 4, 1, " 0.0");
	fit(123456, 4, 1, "123k");
	fit(1500, 3, 1, " 2k"); /* 1.5k does not fit 3 columns */
	fit(1500, 4, 1, "1500");
	fit(15000, 4, 1, " 15k");
	fit(1540, 5, 1, " 1540");
	fit(15400, 4, 1, " 15k");
	fit(1540, 3, 1, " 2k");
	fit(2.5e9, 4, 1, "2.5G");
	fit(999600, 4, 1, "1.0M"); /* not "1000k" */
	fit(99999, 3, 0, "###");   /* 100k is too wide, and it is not 0M */
	fit(NAN, 4, 1, "   -");
	fit(INFINITY, 2, 0, " -");
	fit(-2.5, 4, 1, "-2.5");
	char small[4];
	CHECK_STR(fs_live_fit(small, sizeof small, 12345, 8, 0), "12k"); /* the width is cut to the buffer */

	cut("sda", 7, "sda");
	cut("nvme0n1", 7, "nvme0n1");
	cut("nvme10n1", 7, "nvme10~");
	cut("h\xc3\xa9llo w\xc3\xb6rld", 5, "h\xc3\xa9ll~"); /* é is one character */
	cut("\xc3\xa9\xc3\xa9\xc3\xa9", 2, "\xc3\xa9~");
	cut("abc", 1, "~");
	cut("abc", 0, "");
	cut("", 3, "");
	return check_exit("test_live");
}
