/*
 * Core-side communication calls: registration, DRMA, BSMP and messages to
 * the host. Each forwards to the Go engine (capi/comm.go) and leaves the kernel
 * if the call stopped the run, except the hot ones, which mostly stay in
 * C: bsp_put and bsp_get are direct where the engine allows (direct.h),
 * else recorded like bsp_send in the core's request log (reqlog.c), which
 * reaches the engine at the next bsp_sync; the hp calls copy through the
 * registration cache (hpcache.c); the message reads take the core's queue
 * in place. A stopped run skips the Go call: the core is on its way out
 * and its requests no longer matter. A DRMA call the engine cannot answer
 * yet (ENGINE_NOT_YET: it needs a registration another core may still
 * push) waits here and asks again (reg_wait_again, core.h).
 */
#include "../../capi/faces.h"

#include <e_bsp.h>
#include <string.h>

/* Asks the engine with `call` (evaluated anew each time) until it answers
 * other than ENGINE_NOT_YET. The call returns before reg_wait_again waits,
 * so the wait holds no Go frame on the core's stack. */
#define ASK_ENGINE(call)                    \
    do {                                    \
        struct reg_wait w_ = {0};           \
        while (reg_wait_again(&w_, (call))) \
            ;                               \
    } while (0)

/* The calling core, or NULL on the host or when the run is stopping. */
static struct ebsp_core *active_core(void)
{
    struct ebsp_core *self = ebsp_self;
    if (!self || sched_stopped())
        return NULL;
    return self;
}

/* A request that does not go into the log: the engine must first see the
 * ones logged before it (issue order). False when that stopped the run. */
static int drained(struct ebsp_core *self)
{
    reqlog_drain(self);
    return !sched_stopped();
}

/* A number below 4096 must not reach Go as a pointer (user_pointer_small,
 * core.h). One that names a registered variable (a put's dst, a get's src,
 * a registration) reaches it as the same offset into a page of its own,
 * which no access may touch (ebsp_small_variables): it is a variable's
 * name like any other, a use of its bytes faults as the number's would,
 * and the engine's reports show the number, as the board printed it. One
 * that names memory to read or write is refused here, as the engine
 * refuses memory it cannot use (NULL still goes on: the engine names it
 * after its other checks). */
static inline const void *variable_for_go(const void *variable)
{
    if (variable && user_pointer_small(variable, 1) && ebsp_small_page)
        return (const char *)ebsp_small_page + (uintptr_t)variable;
    return user_pointer_for_go(variable);
}

/* Whether p, n bytes the call reads (write: writes), is a number below
 * 4096 other than NULL; then reported, and the run stops. */
static int small_refused(struct ebsp_core *self, const char *call, const char *what, const void *p, int n, int write)
{
    return p && n > 0 && user_pointer_refused(self->pid, call, what, p, (size_t)n, write);
}

/* Registrations may take effect at once (the board's model), so the
 * requests logged before them are parsed first, and the addresses this core
 * cached for hpput/hpget are forgotten after. */
void bsp_push_reg(const void *variable, const int nbytes)
{
    variable = core_pointer(ebsp_self, variable);
    struct ebsp_core *self = active_core();
    if (self && drained(self)) {
        goPushReg(self->pid, (void *)variable_for_go(variable), nbytes);
        hp_forget(self);
        reg_pushed(); /* a core may wait for it (board registrations) */
    }
    sched_leave_if_stopped();
}

void bsp_pop_reg(const void *variable)
{
    variable = core_pointer(ebsp_self, variable);
    struct ebsp_core *self = active_core();
    if (self && drained(self)) {
        goPopReg(self->pid, (void *)variable_for_go(variable));
        hp_forget(self);
    }
    sched_leave_if_stopped();
}

/* bsp_put when the inline fast path cannot take it (put_request,
 * direct.h): first calls into the engine of a superstep, registration
 * cache misses, errors. */
__attribute__((noinline)) void put_slow(int pid, const void *src, void *dst, int offset, int nbytes)
{
    struct ebsp_core *self = active_core();
    int direct = DIRECT_ELSEWHERE;
    dst = (void *)variable_for_go(dst);
    if (self && small_refused(self, "bsp_put", "the source", src, nbytes, 0))
        self = NULL;
    if (self)
        direct = world_local(pid) ? direct_put(self, pid, src, dst, offset, nbytes) : wire_put(self, pid, src, dst, offset, nbytes);
    if (direct == DIRECT_LOGGED)
        return;
    if (direct == DIRECT_ELSEWHERE && self && reqlog_put(self, pid, src, dst, offset, nbytes))
        return; /* logged: nothing here can have stopped the run */
    if (direct == DIRECT_ELSEWHERE && self && drained(self))
        ASK_ENGINE(goPut(self->pid, pid, (void *)src, dst, offset, nbytes));
    sched_leave_if_stopped();
}

SIBLING_CALLS void bsp_put(int pid, const void *src, void *dst, int offset, int nbytes)
{
    /* no stop check on the fast path: a stopped run is noticed at the
       latest when the log is full and put_slow runs */
    struct ebsp_core *self = ebsp_self;
    put_request(self, pid, core_pointer(self, src), core_pointer(self, dst), offset, nbytes);
}

/* The inline fast path of bsp_hpput, bsp_hpget and bsp_direct_get: core
 * pid's copy of a registered variable when the registration cache has it,
 * else NULL (the calls then go the whole way, into the engine if need be). */
static inline char *hp_fast(int pid, const void *variable, int offset, int nbytes, int write)
{
    struct ebsp_core *self = ebsp_self;
    if (!self || sched_stopped())
        return NULL;
    return hp_cached(self, pid, variable, offset, nbytes, superstep_stamp(self), write);
}

__attribute__((noinline)) static void hpput_slow(int pid, const void *src, void *dst, int offset, int nbytes)
{
    struct ebsp_core *self = active_core();
    dst = (void *)variable_for_go(dst);
    if (self && small_refused(self, "bsp_hpput", "the source", src, nbytes, 0))
        self = NULL;
    char *remote = self && src ? hp_remote(self, pid, dst, offset, nbytes, 1) : NULL;
    if (remote && copy_user(remote + offset, src, (size_t)nbytes))
        return; /* else the engine reports the source */
    if (self && !world_local(pid) && wire_hpput(self, pid, src, dst, offset, nbytes) == DIRECT_LOGGED)
        return; /* completes at the sync, as BSPlib allows */
    if (self)
        ASK_ENGINE(goHPPut(self->pid, pid, (void *)src, dst, offset, nbytes));
    sched_leave_if_stopped();
}

/* bsp_hpput's copy of more than COPY_INLINE_MAX bytes, out of line (see
 * put_fast_call, direct.h), or its slow path when it fails. */
__attribute__((noinline)) static void hpput_large(char *to, int pid, const void *src, void *dst, int offset, int nbytes)
{
    if (!copy_user(to, src, (size_t)nbytes))
        hpput_slow(pid, src, dst, offset, nbytes);
}

/* bsp_hpput to a core of another process, which completes at the sync, as
 * BSPlib allows; out of line, as hpput_large. */
__attribute__((noinline)) static void hpput_remote(int pid, const void *src, void *dst, int offset, int nbytes)
{
    struct ebsp_core *self = ebsp_self;
    if (!self || nbytes >= WIRE_REF_MIN || !wire_put_fast(self, pid, src, dst, offset, nbytes))
        hpput_slow(pid, src, dst, offset, nbytes);
}

SIBLING_CALLS void bsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes)
{
    src = core_pointer(ebsp_self, src);
    dst = core_pointer(ebsp_self, dst);
    if (!world_local(pid)) {
        hpput_remote(pid, src, dst, offset, nbytes);
        return;
    }
    char *remote = src ? hp_fast(pid, dst, offset, nbytes, 1) : NULL;
    if (!remote)
        hpput_slow(pid, src, dst, offset, nbytes);
    else if ((unsigned)nbytes > COPY_INLINE_MAX)
        hpput_large(remote + offset, pid, src, dst, offset, nbytes);
    else if (!copy_user(remote + offset, src, (size_t)nbytes))
        hpput_slow(pid, src, dst, offset, nbytes);
}

/* bsp_get when the inline fast path cannot take it (see put_slow). */
__attribute__((noinline)) void get_slow(int pid, const void *src, int offset, void *dst, int nbytes)
{
    struct ebsp_core *self = active_core();
    src = variable_for_go(src);
    if (self && small_refused(self, "bsp_get", "the destination", dst, nbytes, 1))
        self = NULL;
    int direct = self ? direct_get(self, pid, src, offset, dst, nbytes) : DIRECT_ELSEWHERE;
    if (direct == DIRECT_LOGGED)
        return;
    if (direct == DIRECT_ELSEWHERE && self && reqlog_get(self, pid, src, offset, dst, nbytes))
        return; /* logged: nothing here can have stopped the run */
    if (direct == DIRECT_ELSEWHERE && self && drained(self))
        ASK_ENGINE(goGet(self->pid, pid, (void *)src, offset, dst, nbytes));
    sched_leave_if_stopped();
}

SIBLING_CALLS void bsp_get(int pid, const void *src, int offset, void *dst, int nbytes)
{
    struct ebsp_core *self = ebsp_self; /* no stop check: see bsp_put */
    get_request(self, pid, core_pointer(self, src), offset, core_pointer(self, dst), nbytes);
}

/* bsp_hpget and bsp_direct_get: read core pid's copy at once. */
static int read_now(struct ebsp_core *self, int pid, const void *src, int offset, void *dst, int nbytes)
{
    char *remote = self && dst ? hp_remote(self, pid, src, offset, nbytes, 0) : NULL;
    return remote && copy_user(dst, remote + offset, (size_t)nbytes); /* else the engine reports dst */
}

__attribute__((noinline)) static void hpget_slow(int pid, const void *src, int offset, void *dst, int nbytes)
{
    struct ebsp_core *self = active_core();
    src = variable_for_go(src);
    if (self && small_refused(self, "bsp_hpget", "the destination", dst, nbytes, 1))
        self = NULL;
    if (read_now(self, pid, src, offset, dst, nbytes))
        return;
    if (self)
        ASK_ENGINE(goHPGet(self->pid, pid, (void *)src, offset, dst, nbytes));
    sched_leave_if_stopped();
}

/* bsp_hpget's copy of more than COPY_INLINE_MAX bytes from core pid's
 * copy at from, out of line (see hpput_large), or its slow path when it
 * fails. */
__attribute__((noinline)) static void hpget_large(int pid, const void *src, int offset, void *dst, int nbytes, const char *from)
{
    if (!copy_user(dst, from, (size_t)nbytes))
        hpget_slow(pid, src, offset, dst, nbytes);
}

SIBLING_CALLS void bsp_hpget(int pid, const void *src, int offset, void *dst, int nbytes)
{
    src = core_pointer(ebsp_self, src);
    dst = core_pointer(ebsp_self, dst);
    char *remote = dst ? hp_fast(pid, src, offset, nbytes, 0) : NULL;
    if (!remote)
        hpget_slow(pid, src, offset, dst, nbytes);
    else if ((unsigned)nbytes > COPY_INLINE_MAX)
        hpget_large(pid, src, offset, dst, nbytes, remote + offset);
    else if (!copy_user(dst, remote + offset, (size_t)nbytes))
        hpget_slow(pid, src, offset, dst, nbytes);
}

__attribute__((noinline)) static void direct_get_slow(int pid, const void *src, int offset, void *dst, int nbytes)
{
    struct ebsp_core *self = active_core();
    src = variable_for_go(src);
    if (self && small_refused(self, "bsp_direct_get", "the destination", dst, nbytes, 1))
        self = NULL;
    if (read_now(self, pid, src, offset, dst, nbytes))
        return;
    if (self)
        ASK_ENGINE(goDirectGet(self->pid, pid, (void *)src, offset, dst, nbytes));
    sched_leave_if_stopped();
}

/* bsp_direct_get's, as hpget_large. */
__attribute__((noinline)) static void direct_get_large(int pid, const void *src, int offset, void *dst, int nbytes, const char *from)
{
    if (!copy_user(dst, from, (size_t)nbytes))
        direct_get_slow(pid, src, offset, dst, nbytes);
}

void bsp_direct_get(int pid, const void *src, int offset, void *dst, int nbytes)
{
    src = core_pointer(ebsp_self, src);
    dst = core_pointer(ebsp_self, dst);
    char *remote = dst ? hp_fast(pid, src, offset, nbytes, 0) : NULL;
    if (!remote)
        direct_get_slow(pid, src, offset, dst, nbytes);
    else if ((unsigned)nbytes > COPY_INLINE_MAX)
        direct_get_large(pid, src, offset, dst, nbytes, remote + offset);
    else if (!copy_user(dst, remote + offset, (size_t)nbytes))
        direct_get_slow(pid, src, offset, dst, nbytes);
}

void *ebsp_get_direct_address(int pid, const void *variable)
{
    variable = core_pointer(ebsp_self, variable);
    struct ebsp_core *self = active_core();
    void *addr = NULL;
    if (self)
        ASK_ENGINE(goDirectAddress(self->pid, pid, (void *)variable_for_go(variable), &addr));
    sched_leave_if_stopped();
    return addr;
}

void bsp_set_tagsize(int *tag_bytes)
{
    tag_bytes = core_pointer(ebsp_self, tag_bytes);
    struct ebsp_core *self = active_core();
    if (self && tag_bytes && !user_memory_refused(self->pid, "bsp_set_tagsize", "the tag size", tag_bytes, sizeof *tag_bytes, 1))
        *tag_bytes = goSetTagsize(self->pid, *tag_bytes);
    sched_leave_if_stopped();
}

/* bsp_send when the inline fast path cannot take it (see put_slow). */
__attribute__((noinline)) void send_slow(int pid, const void *tag, const void *payload, int nbytes)
{
    struct ebsp_core *self = active_core();
    if (self && (small_refused(self, "bsp_send", "the tag", tag, self->tagsize, 0) ||
                 small_refused(self, "bsp_send", "the payload", payload, nbytes, 0)))
        self = NULL;
    tag = user_pointer_for_go(tag); /* a tag size of 0: not read */
    int direct = self ? direct_send(self, pid, tag, payload, nbytes) : DIRECT_ELSEWHERE;
    if (direct == DIRECT_LOGGED)
        return;
    if (direct == DIRECT_ELSEWHERE && self && reqlog_send(self, pid, tag, payload, nbytes))
        return; /* logged: nothing here can have stopped the run */
    if (direct == DIRECT_ELSEWHERE && self && drained(self))
        goSend(self->pid, pid, (void *)tag, (void *)payload, nbytes);
    sched_leave_if_stopped();
}

SIBLING_CALLS void bsp_send(int pid, const void *tag, const void *payload, int nbytes)
{
    struct ebsp_core *self = ebsp_self; /* no stop check: see bsp_put */
    send_request(self, pid, core_pointer(self, tag), core_pointer(self, payload), nbytes);
}

/* The message calls read the core's queue (struct ebsp_msgq) in place. */
void bsp_qsize(int *packets, int *accum_bytes)
{
    packets = core_pointer(ebsp_self, packets);
    accum_bytes = core_pointer(ebsp_self, accum_bytes);
    struct ebsp_core *self = active_core();
    int n = 0, bytes = 0;
    if (self) {
        n = self->queue.n - self->queue.head;
        bytes = (int)self->queue.bytes;
    }
    if (packets)
        *packets = n;
    if (accum_bytes)
        *accum_bytes = bytes;
    sched_leave_if_stopped();
}

void bsp_get_tag(int *status, void *tag)
{
    status = core_pointer(ebsp_self, status);
    tag = core_pointer(ebsp_self, tag);
    struct ebsp_core *self = active_core();
    struct ebsp_msg *m = self ? next_message(self) : NULL;
    if (m && tag) {
        intptr_t room = self->queue.whole_tag ? m->tag_len : self->tagsize;
        size_t n = (size_t)(m->tag_len < room ? m->tag_len : room);
        if (n > 0 && user_writable(self, "bsp_get_tag", "the tag buffer", tag, n))
            copy_small(tag, m->tag, n);
    }
    if (status)
        *status = m ? (int)m->size : -1;
    sched_leave_if_stopped();
}

void bsp_move(void *payload, int buffer_size)
{
    struct ebsp_core *self = ebsp_self;
    payload = core_pointer(self, payload);
    struct ebsp_msg *m = self ? next_message(self) : NULL;
    if (!m || !move_message(self, m, payload, buffer_size))
        sched_leave_if_stopped();
}

int bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf)
{
    tag_ptr_buf = core_pointer(ebsp_self, tag_ptr_buf);
    payload_ptr_buf = core_pointer(ebsp_self, payload_ptr_buf);
    struct ebsp_core *self = active_core();
    struct ebsp_msg *m = self ? next_message(self) : NULL;
    int size = -1;
    if (m) {
        move_message(self, m, NULL, 0);
        if (tag_ptr_buf)
            *tag_ptr_buf = m->tag;
        if (payload_ptr_buf)
            *payload_ptr_buf = m->payload;
        size = (int)m->size;
    }
    sched_leave_if_stopped();
    return size;
}

void ebsp_send_up(const void *tag, const void *payload, int nbytes)
{
    tag = core_pointer(ebsp_self, tag);
    payload = core_pointer(ebsp_self, payload);
    struct ebsp_core *self = active_core();
    if (self && (small_refused(self, "ebsp_send_up", "the tag", tag, self->tagsize, 0) ||
                 small_refused(self, "ebsp_send_up", "the payload", payload, nbytes, 0)))
        self = NULL;
    if (self)
        goSendUp(self->pid, user_pointer_for_go(tag), (void *)payload, nbytes);
    sched_leave_if_stopped();
}
