/*
 * Host-side calls that run the cores: ebsp_spmd blocks in C (never inside a
 * Go call, so core threads entering Go are not starved of Go's Ps) while
 * the host thread serves ebsp_host_sync callbacks.
 */
#include "shim.h"
#include "reqlog.h"
#include "direct.h"

#include <host_bsp.h>

void ebsp_set_sync_callback(void (*cb)())
{
    ebsp_sync_cb = cb;
}

void ebsp_set_end_callback(void (*cb)())
{
    ebsp_end_cb = cb;
}

int ebsp_spmd(void)
{
    if (ebsp_self) {
        out_core_line(ebsp_self->pid, "BSP ERROR: ebsp_spmd: called on a core; it is a host call");
        return 0;
    }
    out_flush();
    struct ebsp_core *cores = goSpmdStart();
    if (!cores)
        return 0;
    int ok = sched_run(cores, ebsp_active_nprocs);
    reqlog_free_all(cores, ebsp_active_nprocs);
    direct_free_all(cores, ebsp_active_nprocs);
    hp_free_all(cores, ebsp_active_nprocs);
    goSpmdDone(ok);
    if (ebsp_end_cb) {
        goEndCallback(1);
        ebsp_end_cb();
        goEndCallback(0);
    }
    out_flush();
    return ok;
}
