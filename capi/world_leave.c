/*
 * The round of a rank whose cores left an MPI world's section without
 * bsp_end (world/mpi/job.go, the leave round): of their own kind,
 * WHERE_FINISHED, given up after a deadline when one is set.
 */
#include "shim.h"
#include "../world/mpi/mpi.h"

static uint64_t leave_deadline;

static int leave_stopped(void)
{
    return sched_stopped() || (leave_deadline && ebsp_now_ns() > leave_deadline);
}

int world_leave_round(int step, int seconds)
{
    leave_deadline = seconds > 0 ? ebsp_now_ns() + (uint64_t)seconds * 1000000000u : 0;
    mpiw_stop_check(leave_stopped);
    int r = mpiw_round(WHERE_FINISHED, step);
    mpiw_stop_check(sched_stopped);
    return r;
}
