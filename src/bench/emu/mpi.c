/* mpi.c - mpi.h over OpenMPI when built with -DFS_MPI (make MPI=1), the
 * one-rank identity otherwise. */
#include "bench/emu/mpi.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef FS_MPI
#include <mpi.h>

static int started;

int fs_mpi_init(int *argc, char ***argv, char *why, size_t whylen)
{
	int flag = 0;
	if (started || (MPI_Initialized(&flag) == MPI_SUCCESS && flag)) {
		started = 1;
		return 0;
	}
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		snprintf(why, whylen, "MPI_Init failed");
		return -1;
	}
	started = 1;
	return 0;
}

void fs_mpi_finalize(void)
{
	int flag = 0;
	if (started && MPI_Finalized(&flag) == MPI_SUCCESS && !flag)
		MPI_Finalize();
}

bool fs_mpi_built(void) { return true; }

int fs_mpi_rank(void)
{
	int r = 0;
	if (started)
		MPI_Comm_rank(MPI_COMM_WORLD, &r);
	return r;
}

int fs_mpi_size(void)
{
	int n = 1;
	if (started)
		MPI_Comm_size(MPI_COMM_WORLD, &n);
	return n;
}

void fs_mpi_barrier(void)
{
	if (started)
		MPI_Barrier(MPI_COMM_WORLD);
}

static void reduce(void *v, size_t n, MPI_Datatype t, MPI_Op op)
{
	if (started && n)
		MPI_Allreduce(MPI_IN_PLACE, v, (int)n, t, op, MPI_COMM_WORLD);
}

void fs_mpi_sum_u64(uint64_t *v, size_t n) { reduce(v, n, MPI_UINT64_T, MPI_SUM); }
void fs_mpi_sum_double(double *v, size_t n) { reduce(v, n, MPI_DOUBLE, MPI_SUM); }
void fs_mpi_max_double(double *v, size_t n) { reduce(v, n, MPI_DOUBLE, MPI_MAX); }
void fs_mpi_min_double(double *v, size_t n) { reduce(v, n, MPI_DOUBLE, MPI_MIN); }

void fs_mpi_bcast(void *buf, size_t len, int root)
{
	if (started && len)
		MPI_Bcast(buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD);
}

_Noreturn void fs_mpi_abort(int status)
{
	if (started)
		MPI_Abort(MPI_COMM_WORLD, status);
	exit(status);
}

#else /* one rank */

int fs_mpi_init(int *argc, char ***argv, char *why, size_t whylen)
{
	(void)argc, (void)argv, (void)why, (void)whylen;
	return 0;
}

void fs_mpi_finalize(void) {}
bool fs_mpi_built(void) { return false; }
int fs_mpi_rank(void) { return 0; }
int fs_mpi_size(void) { return 1; }
void fs_mpi_barrier(void) {}
void fs_mpi_sum_u64(uint64_t *v, size_t n) { (void)v, (void)n; }
void fs_mpi_sum_double(double *v, size_t n) { (void)v, (void)n; }
void fs_mpi_max_double(double *v, size_t n) { (void)v, (void)n; }
void fs_mpi_min_double(double *v, size_t n) { (void)v, (void)n; }
void fs_mpi_bcast(void *buf, size_t len, int root) { (void)buf, (void)len, (void)root; }

_Noreturn void fs_mpi_abort(int status)
{
	exit(status);
}

#endif
