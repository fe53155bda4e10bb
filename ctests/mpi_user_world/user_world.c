/*
 * A BSPlib program that calls MPI itself: it names MPI_COMM_WORLD, so the
 * executable holds its own copy of that object (a copy relocation), which
 * is the one Open MPI initialises; the library must use that copy too.
 * Each core prints its pid and its rank's MPI rank and size.
 */
#include <bsp.h>
#include <mpi.h>
#include <stdio.h>

int main(void)
{
    bsp_begin(bsp_nprocs());
    int rank = -1, size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("$%02u: MPI rank %d of %d\n", (unsigned)bsp_pid(), rank, size);
    bsp_end();
    return 0;
}
