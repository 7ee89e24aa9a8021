/* gpu - placeholder until the source is written. */
#include <stdio.h>

#include "source/source.h"

static int ph_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	(void)state;
	(void)ctx;
	snprintf(why, whylen, "not built yet");
	return FS_SOURCE_UNAVAILABLE;
}

static int ph_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	(void)state;
	(void)ctx;
	(void)why;
	(void)whylen;
	return FS_SOURCE_OK;
}

static void ph_close(void *state)
{
	(void)state;
}

const struct fs_source_ops fs_source_gpu = {
	.abi = FS_SOURCE_ABI,
	.name = "gpu",
	.open = ph_open,
	.sample = ph_sample,
	.close = ph_close,
};
