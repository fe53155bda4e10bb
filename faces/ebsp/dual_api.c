/*
 * bsp_begin, bsp_end, bsp_nprocs and ebsp_get_tagsize exist in both
 * host_bsp.h and e_bsp.h (some with different signatures). One exported
 * symbol serves both: the caller is
 * an emulated core when its thread carries a core identity. This file
 * includes neither header, since they cannot both be in scope.
 */
#include "../../capi/faces.h"

int bsp_begin(int nprocs)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return goHostBegin(nprocs);
    self->begin_ns = self->last_raw_ns = ebsp_now_ns();
    hp_forget(self);         /* registrations of an earlier run */
    goCoreBegin(self->pid);
    sched_leave_if_stopped();
    return 1;
}

int bsp_end(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return goHostEnd();
    reqlog_drain(self); /* a misuse in the last superstep is still reported */
    if (goCoreEnd(self->pid))
        sched_barrier(WHERE_END);
    sched_leave_if_stopped();
    return 1;
}

int bsp_nprocs(void)
{
    if (ebsp_self)
        return ebsp_active_nprocs;
    return goHostNprocs();
}

int ebsp_get_tagsize(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self)
        return goHostTagsize();
    return self->tagsize; /* the engine keeps it current (engine.Mirror) */
}
