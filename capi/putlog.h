/*
 * Direct puts: the board's way of doing bsp_put. The target's address is
 * resolved at the call (the registration cache of hpcache.c), the source
 * bytes are copied into the core's put log, and in the sync, once every
 * core has served the gets of the superstep, the core writes its own puts
 * to their targets: one copy at the call and one in the sync, nothing
 * parsed or packed. The engine decides per superstep whether a core may
 * put this way (not with statistics or strict checks, see
 * runtime.Core.BeginDirectPuts) and when the puts are written (phase B of
 * the sync); a put the cache cannot resolve takes the request log instead,
 * where the engine reports what is wrong with it.
 */
#ifndef EBSP_PUTLOG_H
#define EBSP_PUTLOG_H

#include "shim.h"

/* What putlog_put did with a put. */
enum { PUT_ELSEWHERE = 0, /* take the request log: not resolvable here, or
                             the engine refused direct puts this superstep */
       PUT_LOGGED = 1,
       PUT_STOPPED = 2 /* over the communication limit: the run is stopping */ };

int putlog_put(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes);

/* Writes the calling core's logged puts to their targets, in issue order,
 * and empties its log: called by the engine in phase B of the sync, which
 * runs on the core's own thread (capi/comm.go). */
void putlog_write(void);

/* Run end: returns the logs' memory, dropping puts never synced. */
void putlog_free_all(struct ebsp_core *cores, int n);

/* Go: whether core pid may put directly in this superstep, and the bytes
 * it may log (capi/comm.go); and the engine's report of a log over that. */
extern int goBeginDirectPuts(int pid, int64_t *budget);
extern void goDirectPutsExhausted(int pid);

#endif
