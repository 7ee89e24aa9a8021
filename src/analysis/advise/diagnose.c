/* diagnose.c - the verdict, then the advice. */
#include "analysis/advise/diagnose.h"

#include "analysis/advise/recommend.h"
#include "analysis/advise/threads.h"

void fs_diagnose(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_verdict *v)
{
	fs_judge(m, t, v);
	fs_recommend(m, t, v);
	fs_advise_oversub(m, v);
}
