/*
 * The request log: bsp_put, bsp_get and bsp_send are recorded by the C shim
 * (no call into Go, which costs more than the recording) and handed to the
 * Go engine in one call, which parses, checks and packs them (the parsing
 * layer of ARCHITECTURE.md runs at the sync). The log keeps issue order.
 *
 * Layout, the engine's (engine/reqlog.go; struct reqlog_entry and its
 * kinds REQ_* are generated into engine_defs.h): entries follow each
 * other, each a struct reqlog_entry then its inline bytes (put: the source
 * bytes; send: the tag then the payload) padded to a multiple of 8.
 */
#ifndef EBSP_REQLOG_H
#define EBSP_REQLOG_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "engine_defs.h"

/* Each returns 1 when the request is in the log, 0 when it must go to the
 * engine directly (large, NULL buffers, negative sizes, bytes of the
 * program's that cannot be read, out of C memory, or the run stopped): the
 * caller then calls reqlog_drain first. */
int reqlog_put(struct ebsp_core *self, int pid, const void *src, void *dst, int offset, int nbytes);
int reqlog_get(struct ebsp_core *self, int pid, const void *src, int offset, void *dst, int nbytes);
int reqlog_send(struct ebsp_core *self, int pid, const void *tag, const void *payload, int nbytes);

/* Hands the log to the engine (which may stop the run on a misuse) and
 * empties it. Nothing to do when the log is empty; skipped when stopped.
 * A request that needs a registration another core may still push waits
 * for it here (reg_wait_again, core.h). */
void reqlog_drain(struct ebsp_core *self);

/* Run end (normal or stopped): returns the logs' memory, forgetting any
 * requests left in them. */
void reqlog_free_all(struct ebsp_core *cores, int n);

/* Go: parses len bytes of log and feeds them to the engine (capi/comm.go);
 * returns how many it took: len, or the offset of a request that waits
 * for another core's registration. */
extern size_t goDrainLog(int pid, void *log, size_t len);

#endif
