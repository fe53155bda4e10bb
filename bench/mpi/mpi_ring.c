/*
 * mpi_ring.c -- lqcd_ring.c's exchange on Open MPI itself, one rank per
 * core: persistent requests (MPI_Send_init, MPI_Recv_init) to and from
 * both ring neighbours, MPI_Startall and MPI_Waitall each iteration.
 * Rank 0 prints RESULT mpi_ring_us B T us (the median of 9 batches).
 *     mpicc -O2 mpi_ring.c -o mpi_ring; mpirun -n R ./mpi_ring [seconds] [bytes...]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, s;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &s);
    double seconds = argc > 1 ? atof(argv[1]) : 0.3;
    int sizes[16] = {8, 1024, 65536}, nsizes = 3;
    if (argc > 2) {
        nsizes = 0;
        for (int i = 2; i < argc && nsizes < 16; i++)
            sizes[nsizes++] = atoi(argv[i]);
    }
    for (int k = 0; k < nsizes; k++) {
        int bytes = sizes[k];
        char *out[2], *in[2];
        MPI_Request req[4];
        for (int d = 0; d < 2; d++) {
            int to = (s + (d ? p - 1 : 1)) % p, from = (s + (d ? 1 : p - 1)) % p;
            out[d] = malloc((size_t)bytes);
            in[d] = malloc((size_t)bytes);
            /* touched pages, as mpi_floor.c's */
            memset(out[d], 0x5a, (size_t)bytes);
            memset(in[d], 0xa5, (size_t)bytes);
            MPI_Recv_init(in[d], bytes, MPI_BYTE, from, d, MPI_COMM_WORLD, &req[d]);
            MPI_Send_init(out[d], bytes, MPI_BYTE, to, d, MPI_COMM_WORLD, &req[2 + d]);
        }
        int n = 1;
        for (;;) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < n; i++) {
                MPI_Startall(4, req);
                MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
            }
            int more = s == 0 && MPI_Wtime() - t0 < seconds / 10;
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (!more)
                break;
            n *= 2;
        }
        double times[9];
        for (int j = 0; j < 9; j++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < n; i++) {
                MPI_Startall(4, req);
                MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
            }
            times[j] = (MPI_Wtime() - t0) / n;
        }
        qsort(times, 9, sizeof times[0], cmp);
        if (s == 0)
            printf("RESULT mpi_ring_us %d %.4f us\n", bytes, times[4] * 1e6);
        for (int d = 0; d < 4; d++)
            MPI_Request_free(&req[d]);
        for (int d = 0; d < 2; d++) {
            free(out[d]);
            free(in[d]);
        }
    }
    MPI_Finalize();
    return 0;
}
