/* The values of the reproducibility test: magnitudes from 1e-8 to 1e16 and
 * both signs, so that the order of the additions changes the bits. */
#ifndef REPRO_H
#define REPRO_H

enum { SUMS = 300, ARRAY = 37 };

static inline double value(int pid, int k, int i)
{
    static const double scale[5] = {1e16, 1.0, -1e16, 1e-8, 3.0};
    return scale[(pid + i) % 5] * (1.0 + 1e-3 * pid + 1e-7 * k + 1e-5 * i);
}

/* The sum in core order, as the library promises. */
static inline double ordered(int p, int k, int i)
{
    double s = 0;
    for (int q = 0; q < p; q++)
        s += value(q, k, i);
    return s;
}

static inline double reversed(int p, int k, int i)
{
    double s = 0;
    for (int q = p - 1; q >= 0; q--)
        s += value(q, k, i);
    return s;
}

#endif
