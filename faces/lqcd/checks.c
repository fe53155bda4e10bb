/*
 * The caller's error state (getErrorNumber, getErrorString), the table of
 * live handles, and the checks of the calls' arguments: a handle is looked
 * up, never followed; user memory is probed before it is used.
 */
#include "lqcd_face.h"

/* ---- errors (per core; per thread off the cores) ---- */

static __thread struct lqcd_err thread_err;

/* The caller's error state. A function of its own, so that no caller keeps
 * a TLS address across a wait (a coroutine core may resume on another
 * thread). */
__attribute__((noinline)) static struct lqcd_err *caller_err(void)
{
    struct ebsp_core *self = ebsp_self;
    if (self && lq.cores && self->pid < lq.n)
        return &lq.cores[self->pid].err;
    return &thread_err;
}

__attribute__((format(printf, 2, 3))) void lq_seterr(int no, const char *format, ...)
{
    struct lqcd_err *e = caller_err();
    va_list ap;
    va_start(ap, format);
    vsnprintf(e->str, sizeof e->str, format, ap);
    va_end(ap);
    e->no = no;
}

char *getErrorString(void)
{
    struct lqcd_err *e = caller_err();
    if (e->no == LQCD_OK)
        return (char *)"no error";
    return e->str;
}

int getErrorNumber(void)
{
    return caller_err()->no;
}

void clearError(void)
{
    struct lqcd_err *e = caller_err();
    e->no = LQCD_OK;
    e->str[0] = 0;
}

/* ---- live handles ---- */

static size_t handle_hash(const void *p)
{
    return lq_hash_bits((uint64_t)(uintptr_t)p);
}

/* Whether p is a channel declared in this run. */
static int handle_live(const void *p)
{
    struct handle_table *t = atomic_load_explicit(&lq.handles, memory_order_acquire);
    if (!t || !p)
        return 0;
    for (size_t i = handle_hash(p) & t->mask;; i = (i + 1) & t->mask) {
        struct lqcd_chan *h = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if (h == p)
            return 1;
        if (!h)
            return 0;
    }
}

static void handle_put(struct handle_table *t, struct lqcd_chan *ch)
{
    size_t i = handle_hash(ch) & t->mask;
    while (atomic_load_explicit(&t->slot[i], memory_order_relaxed))
        i = (i + 1) & t->mask;
    atomic_store_explicit(&t->slot[i], ch, memory_order_release);
}

/* Makes ch a live handle; 0, or -1 without memory. */
int lq_handle_add(struct lqcd_chan *ch)
{
    pthread_mutex_lock(&lq.handles_lock);
    struct handle_table *t = atomic_load_explicit(&lq.handles, memory_order_relaxed);
    if (!t || 2 * (lq.nhandles + 1) > t->mask + 1) {
        size_t cap = t ? 2 * (t->mask + 1) : 256;
        struct handle_table *g = calloc(1, sizeof *g + cap * sizeof g->slot[0]);
        if (!g) {
            pthread_mutex_unlock(&lq.handles_lock);
            return -1;
        }
        g->mask = cap - 1;
        g->older = t;
        for (size_t i = 0; t && i <= t->mask; i++) {
            struct lqcd_chan *h = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
            if (h)
                handle_put(g, h);
        }
        atomic_store_explicit(&lq.handles, g, memory_order_release);
        t = g;
    }
    handle_put(t, ch);
    lq.nhandles++;
    pthread_mutex_unlock(&lq.handles_lock);
    return 0;
}

void lq_handles_free(void)
{
    struct handle_table *t = atomic_exchange(&lq.handles, NULL);
    while (t) {
        struct handle_table *older = t->older;
        free(t);
        t = older;
    }
    lq.nhandles = 0;
}

/* The calling core's state, or NULL (error set) outside a core. */
struct lqcd_core *lq_core_of_caller(const char *call, int need_init)
{
    struct ebsp_core *self = ebsp_self;
    if (!self || !lq.cores || self->pid >= lq.n) {
        lq_seterr(LQCD_ERR_NOT_CORE, "%s: called outside a core (the LQCD calls belong in kernels)", call);
        return NULL;
    }
    if (self->section != &ebsp_outer_section) {
        lq_seterr(LQCD_ERR_NOT_CORE, "%s: called in a nested BSPlib section (the LQCD calls belong to the outermost section)",
                  call);
        return NULL;
    }
    struct lqcd_core *c = &lq.cores[self->pid];
    if (need_init && !c->init) {
        if (atomic_load(&c->shut))
            lq_seterr(LQCD_ERR_NOT_INIT, "%s: core %d called shutdownMachine", call, self->pid);
        else
            lq_seterr(LQCD_ERR_NOT_INIT, "%s: core %d has not called initMachine in this run", call, self->pid);
        return NULL;
    }
    return c;
}

/* Sets LQCD_ERR_ARG when the n bytes at p, argument `what` of call, cannot
 * be read (or, with write, written): the data would move later, where a
 * fault is a crash inside the library. Returns whether they can. */
int lq_check_memory(const char *call, const char *what, const void *p, size_t n, int write)
{
    size_t good = user_memory_good(p, n, write);
    if (n == 0 || good == n)
        return 1;
    char at[40] = "there";
    if (good > 0)
        snprintf(at, sizeof at, "at %p", (void *)((const char *)p + good));
    lq_seterr(LQCD_ERR_ARG, "%s: cannot %s %zu bytes %s %s at %p: no %s memory %s", call, write ? "write" : "read", n,
           write ? "to" : "of", what, p, write ? "writable" : "readable", at);
    return 0;
}

/* write: the buffer receives (declareReceive). */
int lq_check_buffer(const char *call, const void *buffer, int nbytes, int write)
{
    if (nbytes < 0) {
        lq_seterr(LQCD_ERR_ARG, "%s: negative size %d", call, nbytes);
        return 0;
    }
    if (!buffer && nbytes > 0) {
        lq_seterr(LQCD_ERR_ARG, "%s: NULL buffer of %d bytes", call, nbytes);
        return 0;
    }
    return lq_check_memory(call, "the buffer", buffer, (size_t)nbytes, write);
}

/* The caller's channel, or NULL (error set). The handle is looked up
 * among the channels declared in this run, never followed before: a
 * wild pointer, a freed channel of an earlier run or a stack address is
 * refused like NULL. */
struct lqcd_chan *lq_chan_of(void *opaque, const char *call)
{
    struct ebsp_core *self = ebsp_self;
    if (!self) {
        lq_seterr(LQCD_ERR_NOT_CORE, "%s: called outside a core", call);
        return NULL;
    }
    if (!handle_live(opaque)) {
        lq_seterr(LQCD_ERR_CHANNEL, "%s: %p is not a channel (declareReceive/declareSend* returned NULL?)", call,
               opaque);
        return NULL;
    }
    struct lqcd_chan *ch = opaque;
    if (ch->magic != SEND_MAGIC && ch->magic != RECV_MAGIC) { /* a declaration that failed half-way */
        lq_seterr(LQCD_ERR_CHANNEL, "%s: %p is not a channel (declareReceive/declareSend* returned NULL?)", call,
               opaque);
        return NULL;
    }
    if (ch->owner != self->pid) {
        lq_seterr(LQCD_ERR_CHANNEL, "%s: the channel belongs to core %d, not to core %d", call, ch->owner, self->pid);
        return NULL;
    }
    if (!lq_core_of_caller(call, 1)) /* not initialised, or shut down: the API's error */
        return NULL;
    return ch;
}
