/* Shared by the lattice example's host and kernel. */
#ifndef LATTICE_H
#define LATTICE_H

enum { NX = 16, NY = 16, STEPS = 20 }; /* each core's block, and the steps */

/* What each core sends up: where its block lies, its partial sum, the
 * global sum it got from sumDouble, and the block. */
struct block {
    int cx, cy;
    double partial, total;
    double u[NY][NX];
};

/* The starting value of site (x, y). */
static inline double initial(int x, int y)
{
    return ((x * 7 + y * 13) % 17) * 0.125 + (x == y);
}

/* One step of the 5-point average, in this order of additions everywhere. */
static inline double average(double left, double right, double down, double up)
{
    return 0.25 * (((left + right) + down) + up);
}

#endif
