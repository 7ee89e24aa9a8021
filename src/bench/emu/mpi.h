/* mpi.h - the few collective operations `feedscope bench` needs to run on
 * several ranks as DLIO does (files split across ranks, AU averaged and
 * throughput summed). Built with MPI only by `make MPI=1` (-DFS_MPI, mpicc,
 * Debian's OpenMPI), into build/mpi/feedscope; otherwise every call is the
 * one-rank identity, so the same bench code serves both builds. */
#ifndef FS_BENCH_MPI_H
#define FS_BENCH_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Start MPI when built with it (MPI_Init; a singleton run without mpirun
 * is one rank). Safe to call more than once. Returns 0, or -1 with a
 * reason in why. */
int fs_mpi_init(int *argc, char ***argv, char *why, size_t whylen);
void fs_mpi_finalize(void);

/* Whether this binary was built with MPI. */
bool fs_mpi_built(void);

int fs_mpi_rank(void);  /* 0 without MPI */
int fs_mpi_size(void);  /* 1 without MPI */

void fs_mpi_barrier(void);

/* In-place reductions over all ranks of v[0..n-1] (every rank gets the result). */
void fs_mpi_sum_u64(uint64_t *v, size_t n);
void fs_mpi_sum_double(double *v, size_t n);
void fs_mpi_max_double(double *v, size_t n);
void fs_mpi_min_double(double *v, size_t n);

/* Copy len bytes at buf from rank root to every rank. */
void fs_mpi_bcast(void *buf, size_t len, int root);

/* Stop every rank with status (MPI_Abort), or exit(status) without MPI. */
_Noreturn void fs_mpi_abort(int status);

#endif
