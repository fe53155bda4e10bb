/*
 * The collectives (barrier, global or, sums in core order) and the
 * broadcast.
 */
#include "lqcd_face.h"

enum { OP_BARRIER = 1, OP_OR, OP_SUM_INT, OP_SUM_FLOAT, OP_SUM_DOUBLE, OP_SUM_FLOAT_ARRAY, OP_SUM_DOUBLE_ARRAY };
static const char *const op_names[] = {
    "?", "waitForBarrier", "globalOr", "sumInt", "sumFloat", "sumDouble", "sumFloatArray", "sumDoubleArray",
};

/* ---- collectives ---- */

/* Publishes this core's contribution and meets the others. Returns the
 * slots of this collective, or NULL when the run stopped. */
static struct lqcd_slot *collective(struct lqcd_core *c, int op, int len, union lqcd_val v)
{
    int pid = ebsp_self->pid;
    struct lqcd_slot *slots = lq.slots[c->coll & 1];
    slots[pid].op = op;
    slots[pid].len = len;
    slots[pid].v = v;
    c->coll++;
    if (sched_barrier(WHERE_LQCD) < 0) {
        lq_seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", op_names[op]);
        sched_leave_if_stopped();
        return NULL;
    }
    if (lq.ranks && lq_gather_slots(slots, pid) != 0) {
        lq_gather_failed(op_names[op]);
        return NULL;
    }
    /* every core must be in the same collective, with the same length */
    for (int q = 0; q < lq.n; q++) {
        if (slots[q].op == slots[0].op && slots[q].len == slots[0].len)
            continue;
        /* reported once, in the name of the first core that differs from
         * core 0, by whichever core sees it first (another one's stop may
         * release the others from the barrier before they look) */
        if (!atomic_exchange(&lq.diverged, 1) && ebsp_world_rank == 0) {
            /* across ranks every rank sees it; rank 0 says it and ends the job */
            char text[200];
            if (slots[q].op != slots[0].op)
                snprintf(text, sizeof text,
                         "LQCD ERROR: %s while core 0 called %s (collective %u): every core calls the same "
                         "collectives in the same order",
                         op_names[slots[q].op], op_names[slots[0].op], c->coll);
            else
                snprintf(text, sizeof text, "LQCD ERROR: %s of %d elements while core 0 sums %d (collective %u)",
                         op_names[op], slots[q].len, slots[0].len, c->coll);
            goLqcdAbort(q, text);
        }
        if (lq.ranks && ebsp_world_rank != 0) {
            struct timespec ts = {5, 0}; /* rank 0 reports and ends the job meanwhile */
            nanosleep(&ts, NULL);
        }
        sched_stop();
        lq_seterr(LQCD_ERR_STOPPED, "%s: the cores called different collectives", op_names[op]);
        sched_leave_if_stopped();
        return NULL;
    }
    sched_progress(); /* communication, not compute: the balancer may try one worker */
    return slots;
}

static struct lqcd_core *collective_core(const char *call)
{
    struct lqcd_core *c = lq_core_of_caller(call, 1);
    if (c && sched_stopped()) {
        lq_seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", call);
        sched_leave_if_stopped();
        return NULL;
    }
    return c;
}

void waitForBarrier(void)
{
    struct lqcd_core *c = collective_core("waitForBarrier");
    if (c)
        collective(c, OP_BARRIER, 0, (union lqcd_val){0});
}

/* A scalar collective: every core's value, in core order, or NULL. */
static struct lqcd_slot *scalar_collective(const char *call, int op, union lqcd_val v)
{
    struct lqcd_core *c = collective_core(call);
    return c ? collective(c, op, 0, v) : NULL;
}

/* The doubles of all cores added in core order: the same bits on every core. */
static double sum_in_core_order(const struct lqcd_slot *s)
{
    double sum = 0;
    for (int q = 0; q < lq.n; q++)
        sum += s[q].v.d;
    return sum;
}

int globalOr(int b)
{
    struct lqcd_slot *s = scalar_collective("globalOr", OP_OR, (union lqcd_val){.i = b != 0});
    int any = 0;
    for (int q = 0; s && q < lq.n; q++)
        any |= (int)s[q].v.i;
    return any;
}

int sumInt(int i)
{
    struct lqcd_slot *s = scalar_collective("sumInt", OP_SUM_INT, (union lqcd_val){.i = i});
    uint32_t sum = 0; /* wraps like two's complement, without signed overflow */
    for (int q = 0; s && q < lq.n; q++)
        sum += (uint32_t)s[q].v.i;
    return (int)sum;
}

float sumFloat(float x)
{
    struct lqcd_slot *s = scalar_collective("sumFloat", OP_SUM_FLOAT, (union lqcd_val){.d = x});
    return s ? (float)sum_in_core_order(s) : 0;
}

/* sumDouble's work, inlined in both of its entries: 0, or -1 (error set). */
static inline __attribute__((always_inline)) int sum_double(double *x)
{
    struct lqcd_slot *s = scalar_collective("sumDouble", OP_SUM_DOUBLE, (union lqcd_val){.d = *x});
    if (!s)
        return -1;
    *x = sum_in_core_order(s);
    return 0;
}

int lqcd_sum_double(double *x)
{
    return sum_double(x);
}

double sumDouble(double x)
{
    return sum_double(&x) == 0 ? x : 0;
}

/* The elements lo..lo+len-1 of every core's array summed in core order
 * (0, then core 0's, core 1's...: the bits of an element's sum do not
 * depend on how the elements are shared) into to[0..len). */
static void sum_share(const struct lqcd_slot *s, double *to, size_t lo, size_t len, int is_float)
{
    for (size_t k = 0; k < len; k++)
        to[k] = 0;
    for (int q = 0; q < lq.n; q++) {
        if (is_float) {
            const float *from = (const float *)s[q].v.p + lo;
            for (size_t k = 0; k < len; k++)
                to[k] += (double)from[k];
        } else {
            const double *from = (const double *)s[q].v.p + lo;
            for (size_t k = 0; k < len; k++)
                to[k] += from[k];
        }
    }
}

/* Array sums: after the first barrier each core sums its share of the
 * elements over all cores (in core order) into its own tmp; after the
 * second, every core copies the result from the tmps of the owners. A tmp
 * is written again only after the next array sum's first barrier, when
 * every core has copied out of it. */
static void sum_array(const char *call, int op, void *x, int n, int is_float)
{
    struct lqcd_core *c = collective_core(call);
    if (!c)
        return;
    size_t es = is_float ? sizeof(float) : sizeof(double);
    if (n < 0 || (n > 0 && !x)) {
        lq_seterr(LQCD_ERR_ARG, "%s: %s", call, n < 0 ? "negative length" : "NULL array");
        n = 0; /* still take part, or the others would wait forever */
    } else if ((size_t)n > SIZE_MAX / es) { /* 32-bit: the bytes do not fit in a size_t */
        lq_seterr(LQCD_ERR_ARG, "%s: %d elements do not fit in the address space", call, n);
        n = 0;
    } else if (!lq_check_memory(call, "the array", x, (size_t)n * (is_float ? sizeof(float) : sizeof(double)), 1)) {
        n = 0; /* as for NULL */
    }
    int pid = ebsp_self->pid, p = lq.count; /* the shares of this process's cores */
    size_t share = ((size_t)n + (size_t)p - 1) / (size_t)p;
    struct lqcd_slot *s = collective(c, op, n, (union lqcd_val){.p = x});
    if (!s)
        return;
    if (lq.ranks && n > 0 && lq_gather_arrays(s, pid, n, is_float ? sizeof(float) : sizeof(double)) != 0) {
        lq_gather_failed(call);
        return;
    }
    /* Grown only now, past the collective's first barrier: a slower core
     * may still be copying the previous array sum out of this tmp until
     * it arrives here. */
    if (share > c->tmp_cap) {
        double *t = realloc(c->tmp, share * sizeof(double));
        if (!t) {
            lq_seterr(LQCD_ERR_NOMEM, "%s: out of memory", call);
            share = 0; /* cannot happen in practice; the sum is then wrong, and says so */
        } else {
            c->tmp = t;
            c->tmp_cap = share;
        }
    }
    size_t lo = share * (size_t)(pid - lq.first), hi = lo + share;
    if (hi > (size_t)n)
        hi = (size_t)n;
    if (lo < hi)
        sum_share(s, c->tmp, lo, hi - lo, is_float);
    if (sched_barrier(WHERE_LQCD) < 0) {
        lq_seterr(LQCD_ERR_STOPPED, "%s: the run is being stopped", call);
        sched_leave_if_stopped();
        return;
    }
    /* an owner's share at a time (an element at a time, with a division
       to find its owner, was 90 % of a 16-core sum of 1000 doubles) */
    for (size_t at = 0, q = (size_t)lq.first; at < (size_t)n; at += share, q++) {
        size_t len = (size_t)n - at < share ? (size_t)n - at : share;
        const double *t = lq.cores[q].tmp;
        if (!is_float) {
            memcpy((double *)x + at, t, len * sizeof *t);
            continue;
        }
        for (size_t k = 0; k < len; k++)
            ((float *)x)[at + k] = (float)t[k];
    }
}

void sumFloatArray(float x[], int n)
{
    sum_array("sumFloatArray", OP_SUM_FLOAT_ARRAY, x, n, 1);
}

void sumDoubleArray(double x[], int n)
{
    sum_array("sumDoubleArray", OP_SUM_DOUBLE_ARRAY, x, n, 0);
}

/* ---- broadcast ---- */

void sendBroadcast(void *buffer, int nbytes, int remoteBuffer)
{
    struct lqcd_core *c = lq_core_of_caller("sendBroadcast", 1);
    if (!c || !lq_check_buffer("sendBroadcast", buffer, nbytes, 0))
        return;
    int pid = ebsp_self->pid;
    struct bcast *b = c->bcasts;
    while (b && (b->name != remoteBuffer || b->nbytes != nbytes))
        b = b->next;
    if (!b) {
        b = calloc(1, sizeof *b);
        char *stage = malloc(nbytes ? (size_t)nbytes : 1);
        struct lqcd_chan **sends = calloc((size_t)lq.n, sizeof *sends);
        if (!b || !stage || !sends) {
            free(b);
            free(stage);
            free(sends);
            lq_seterr(LQCD_ERR_NOMEM, "sendBroadcast: out of memory");
            return;
        }
        b->name = remoteBuffer;
        b->nbytes = nbytes;
        b->stage = stage;
        b->sends = sends;
        b->next = c->bcasts;
        c->bcasts = b;
        for (int q = 0; q < lq.n; q++)
            if (q != pid)
                b->sends[q] = lq_declare_send(c, "sendBroadcast", stage, nbytes, q, remoteBuffer, 0);
    }
    /* the previous broadcast must have left the stage */
    int failed = 0;
    for (int q = 0; q < lq.n; q++) {
        struct lqcd_chan *s = b->sends[q];
        if (!s)
            continue;
        int r = lq_wait_all(&s, 1, -1, "sendBroadcast", 1);
        if (r < 0 && sched_stopped()) {
            sched_leave_if_stopped();
            return;
        }
        failed += r < 0;
    }
    if (nbytes)
        memcpy(b->stage, buffer, (size_t)nbytes);
    for (int q = 0; q < lq.n; q++) {
        struct lqcd_chan *s = b->sends[q];
        if (s && !atomic_load(&s->err) && atomic_load(&s->state) != CH_PENDING)
            lq_start_send(s);
    }
    (void)failed; /* the error of the last failure is set */
}
