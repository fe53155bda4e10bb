/* The same benchmark with MPI persistent requests: a 4D periodic Cartesian
 * grid (MPI_Dims_create), 8 directions, MPI_Send_init / MPI_Recv_init once,
 * then MPI_Startall + MPI_Waitall per exchange; and MPI_Allreduce of one
 * double (the counterpart of sumDouble). Rank 0 prints medians of 5 trials. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_lqcd.h" /* TRIALS, DIRS, cmp: the same benchmark's */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int dims[4] = {0, 0, 0, 0}, periods[4] = {1, 1, 1, 1};
    MPI_Dims_create(p, 4, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 4, dims, periods, 1, &grid);
    MPI_Comm_rank(grid, &rank);
    static const int sizes[] = {1024, 65536};
    for (int i = 0; i < 2; i++) {
        int bytes = sizes[i];
        int exchanges = bytes <= 1024 ? (p <= 16 ? 500 : 100) : (p <= 16 ? 100 : 20);
        int sums = p <= 16 ? 1000 : 200;
        char *in = malloc((size_t)DIRS * bytes), *out = malloc((size_t)DIRS * bytes);
        MPI_Request req[2 * DIRS];
        for (int d = 0; d < 4; d++) {
            int minus, plus;
            MPI_Cart_shift(grid, d, 1, &minus, &plus);
            /* tag 2d: travels towards +d; tag 2d+1: towards -d */
            MPI_Recv_init(in + (2 * d) * bytes, bytes, MPI_BYTE, minus, 2 * d, grid, &req[2 * d]);
            MPI_Recv_init(in + (2 * d + 1) * bytes, bytes, MPI_BYTE, plus, 2 * d + 1, grid, &req[2 * d + 1]);
            MPI_Send_init(out + (2 * d) * bytes, bytes, MPI_BYTE, plus, 2 * d, grid, &req[DIRS + 2 * d]);
            MPI_Send_init(out + (2 * d + 1) * bytes, bytes, MPI_BYTE, minus, 2 * d + 1, grid,
                          &req[DIRS + 2 * d + 1]);
        }
        double tx[TRIALS], ts[TRIALS];
        for (int t = 0; t < TRIALS; t++) {
            MPI_Barrier(grid);
            double t0 = MPI_Wtime();
            for (int k = 0; k < exchanges; k++) {
                MPI_Startall(2 * DIRS, req);
                MPI_Waitall(2 * DIRS, req, MPI_STATUSES_IGNORE);
            }
            MPI_Barrier(grid);
            tx[t] = (MPI_Wtime() - t0) / exchanges;
            double x = rank, sum;
            MPI_Barrier(grid);
            t0 = MPI_Wtime();
            for (int k = 0; k < sums; k++)
                MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
            ts[t] = (MPI_Wtime() - t0) / sums;
        }
        for (int k = 0; k < 2 * DIRS; k++)
            MPI_Request_free(&req[k]);
        qsort(tx, TRIALS, sizeof(double), cmp);
        qsort(ts, TRIALS, sizeof(double), cmp);
        if (rank == 0)
            printf("Open MPI  %3d ranks  %6d B  halo exchange %9.2f us   Allreduce %7.2f us\n", p, bytes,
                   tx[TRIALS / 2] * 1e6, ts[TRIALS / 2] * 1e6);
        free(in);
        free(out);
    }
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
