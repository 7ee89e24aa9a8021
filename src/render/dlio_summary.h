/* dlio_summary.h - DLIO's summary.json for a `feedscope bench` run
 * (`--summary FILE`): DLIO's keys and units, so that the scripts that read
 * DLIO's and MLPerf Storage's results read ours (docs/bench.md, "DLIO's
 * summary.json"). DLIO's definitions, as its statscounter computes them:
 *   train_au_percentage            per epoch, AU × 100 (the mean over accelerators)
 *   train_au_mean/stdev_percentage over the epochs (population stdev, as numpy's)
 *   train_throughput_samples_per_second  per epoch: per accelerator, the AU
 *                                  window's samples ÷ the window's time (the
 *                                  first step left out), summed
 *   train_io_mean/stdev_MB_per_second    throughput × record_length / 2^20:
 *                                  MiB/s, whatever the name says
 *   save/load_checkpoint_*         per checkpoint: GiB ÷ seconds, seconds
 * A pure printer of a struct fs_bench_report. */
#ifndef FS_RENDER_DLIO_SUMMARY_H
#define FS_RENDER_DLIO_SUMMARY_H

#include <stdio.h>

#include "bench/emu/run_report.h"

/* Write b's summary.json to out (one document and a newline). */
void fs_dlio_summary_write(FILE *out, const struct fs_bench_report *b);

/* The population mean and standard deviation of the n finite values of x
 * (NaN entries skipped); both NaN when none is finite. For tests too. */
void fs_dlio_mean_std(const double *x, int n, double *mean, double *stdev);

#endif
