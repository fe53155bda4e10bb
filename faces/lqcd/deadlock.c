/*
 * Why an LQCD wait has not ended (explain_text), and deadlocks of LQCD
 * waits: every core blocked for good, some in an LQCD wait that no core
 * can end.
 */
#include "lqcd_face.h"

/* What ch (in flight) waits for, in what (size bytes); returns 1 when it
 * never can complete (the other side left), with *codep its error. */
int lq_explain_text(struct lqcd_chan *ch, char *what, size_t size, int *codep)
{
    int hopeless = 0, code = LQCD_ERR_TIMEOUT;
    if (ch->magic == SEND_MAGIC && ch->rank >= 0) {
        snprintf(what, size,
                 "the send to buffer %d of core %d (MPI rank %d) is pending: core %d has not declared or not armed it",
                 ch->name, ch->remote, ch->rank, ch->remote);
    } else if (ch->magic == SEND_MAGIC) {
        int host = ch->remote;
        hopeless = lq_gone(host);
        const char *left = atomic_load(&lq.cores[host].shut) ? "shut down" : "left its kernel";
        if (!atomic_load(&ch->target)) {
            code = hopeless ? LQCD_ERR_NO_BUFFER : code;
            if (hopeless)
                snprintf(what, size, "the send to buffer %d of core %d is pending: core %d %s without declaring it",
                         ch->name, host, host, left);
            else
                snprintf(what, size, "the send to buffer %d of core %d is pending: core %d has not declared it",
                         ch->name, host, host);
        } else {
            code = hopeless ? LQCD_ERR_PARTNER : code;
            if (hopeless)
                snprintf(what, size, "the send to buffer %d of core %d is pending: core %d %s without arming it",
                         ch->name, host, host, left);
            else
                snprintf(what, size, "the send to buffer %d of core %d is pending: core %d has not armed it (startReceive)",
                         ch->name, host, host);
        }
    } else {
        int others = 0, alive = 0;
        for (int p = 0; p < lq.n; p++)
            if (p != ch->owner) {
                others++;
                alive += !lq_gone(p);
            }
        hopeless = others == 0 || alive == 0;
        code = hopeless ? LQCD_ERR_PARTNER : code;
        /* the lowest 6 sender pids, in order: the same text whatever the
           order in which the senders declared */
        int lowest[6], k = 0;
        struct lqcd_core *c = &lq.cores[ch->owner];
        pthread_mutex_lock(&c->dir_lock);
        for (struct lqcd_chan *s = ch->senders; s; s = s->sender_next, k++) {
            int at = k < 6 ? k : 6;
            while (at > 0 && lowest[at - 1] > s->owner) {
                if (at < 6)
                    lowest[at] = lowest[at - 1];
                at--;
            }
            if (at < 6)
                lowest[at] = s->owner;
        }
        pthread_mutex_unlock(&c->dir_lock);
        char senders[64] = "";
        for (int i = 0; i < k && i < 6; i++)
            snprintf(senders + strlen(senders), sizeof senders - strlen(senders), "%s%d", i ? "," : "", lowest[i]);
        if (k == 0 && lq.ranks)
            snprintf(what, size,
                     "nothing arrived in buffer %d of core %d: no core of its MPI rank declared a send to it, "
                     "and nothing came from the other ranks", ch->name, ch->owner);
        else if (k == 0)
            snprintf(what, size, "nothing arrived in buffer %d of core %d: no core declared a send to it%s",
                     ch->name, ch->owner, hopeless ? " and all others left" : "");
        else
            snprintf(what, size, "nothing arrived in buffer %d of core %d: no send started by core%s %s%s%s",
                     ch->name, ch->owner, k > 1 ? "s" : "", senders, k > 6 ? ",..." : "",
                     hopeless ? " (all left)" : "");
    }
    *codep = code;
    return hopeless;
}

/* lq_explain_text's verdict without its text: what a waiter looks at
 * before every sleep (the text was a tenth of a 16-core halo exchange). */
int lq_hopeless(struct lqcd_chan *ch, int *codep)
{
    int hopeless = 0;
    if (ch->magic == SEND_MAGIC && ch->rank < 0) {
        hopeless = lq_gone(ch->remote);
        *codep = !hopeless ? LQCD_ERR_TIMEOUT : atomic_load(&ch->target) ? LQCD_ERR_PARTNER : LQCD_ERR_NO_BUFFER;
    } else if (ch->magic != SEND_MAGIC) {
        hopeless = 1;
        for (int p = 0; p < lq.n && hopeless; p++)
            hopeless = p == ch->owner || lq_gone(p);
        *codep = hopeless ? LQCD_ERR_PARTNER : LQCD_ERR_TIMEOUT;
    } else {
        *codep = LQCD_ERR_TIMEOUT;
    }
    return hopeless;
}

/* ---- deadlocks of LQCD waits ---- */

/* Whether the place of a core that does not run is a barrier's (enum
 * ebsp_where). */
static int in_barrier(int where)
{
    return where == WHERE_SYNC || where == WHERE_BARRIER || where == WHERE_HOST_SYNC || where == WHERE_END ||
           where == WHERE_LQCD;
}

/* Whether ch, waited for by a core asleep, can still complete without a
 * core that runs: only running cores start, arm and copy. */
static int stuck(struct lqcd_chan *ch)
{
    if (!ch || atomic_load(&ch->err))
        return 0;
    int st = atomic_load(&ch->state);
    /* a send to another rank completes once MPI has its bytes, which
       that rank takes in whenever it waits */
    return ch->magic == SEND_MAGIC ? ch->rank < 0 && st == CH_PENDING : st == CH_ARMED;
}

/* Looks at the cores first..first+count-1 once, into v[0..count): *out
 * says whether they are all blocked: asleep in an LQCD wait without limit
 * that no core of them can end, waiting in a barrier, or finished; with
 * how many LQCD waiters, and the fewest barrier rounds of a waiter and of
 * a core in a barrier (a core in a round that every waiter passed is
 * released, not yet running: the caller compares). The LQCD waiters run
 * no more, as nothing they wait for can happen without a core that runs
 * (in this process; across ranks deadlock_ranks.c counts the messages). */
static void look(struct core_look *v, int first, int count, struct look_verdict *out)
{
    *out = (struct look_verdict){.least_wait = INT_MAX, .least_barrier = INT_MAX};
    for (int i = 0; i < count; i++) {
        v[i].seq = atomic_load(&lq.cores[first + i].wait_seq);
        v[i].where = sched_where(first + i);
        v[i].arrivals = sched_arrivals(first + i);
    }
    /* the cheap looks first: a halo exchange's cores sleep often, and
       most of the time some core runs */
    for (int i = 0; i < count; i++) {
        if (v[i].seq & 1) {
            if (!stuck(atomic_load(&lq.cores[first + i].waited)))
                return; /* it will complete */
            out->waiters++;
            out->least_wait = v[i].arrivals < out->least_wait ? v[i].arrivals : out->least_wait;
        } else if (in_barrier(v[i].where)) {
            out->least_barrier = v[i].arrivals < out->least_barrier ? v[i].arrivals : out->least_barrier;
        } else if (v[i].where != WHERE_FINISHED) {
            return; /* it runs */
        }
    }
    for (int i = 0; i < count; i++) {
        char what[ERR_MAX];
        int code;
        if ((v[i].seq & 1) && lq_explain_text(atomic_load(&lq.cores[first + i].waited), what, sizeof what, &code))
            return; /* it fails at its next look: the other side left */
    }
    out->blocked = 1;
}

/* look twice, v[0..2 * count) filled, and compare, so that a core that
 * ran in between (its wait_seq, place or arrivals changed) is seen:
 * whether the cores are blocked (the verdict in *out). */
int lq_look_twice(struct core_look *v, int first, int count, struct look_verdict *out)
{
    struct look_verdict again;
    look(v, first, count, out);
    if (!out->blocked)
        return 0;
    look(v + count, first, count, &again);
    out->blocked = again.blocked && !memcmp(v, v + count, (size_t)count * sizeof *v);
    return out->blocked;
}

/* One line per LQCD waiter of v (a look at cores first..): "  core NN in
 * waitFor: why", into text (cap bytes, cut at a line); returns the length. */
size_t lq_wait_lines(const struct core_look *v, int first, int count, char *text, size_t cap)
{
    size_t at = 0;
    if (cap)
        text[0] = 0;
    for (int i = 0; i < count; i++) {
        if (!(v[i].seq & 1))
            continue;
        char what[ERR_MAX], line[ERR_MAX + 64];
        int code, p = first + i;
        lq_explain_text(atomic_load(&lq.cores[p].waited), what, sizeof what, &code);
        int len = snprintf(line, sizeof line, "  core %02d in %s: %s\n", p, atomic_load(&lq.cores[p].wait_call), what);
        if (len < 0 || at + (size_t)len >= cap)
            break;
        memcpy(text + at, line, (size_t)len + 1);
        at += (size_t)len;
    }
    return at;
}

/* Called by a core about to sleep in an LQCD wait (its wait_seq odd), in
 * one process: when every core is blocked for good, reports the deadlock,
 * naming each LQCD wait, stops the run and returns 1. Across ranks a
 * message from another rank may end a wait: deadlock_ranks.c searches. */
int lq_deadlock_check(void)
{
    int n = lq.n;
    if (lq.ranks || n <= 0 || atomic_load(&lq.deadlocked))
        return 0;
    struct core_look *v = malloc(2 * (size_t)n * sizeof *v);
    if (!v)
        return 0;
    struct look_verdict seen;
    int dead = lq_look_twice(v, 0, n, &seen) && seen.waiters > 0 && seen.least_barrier > seen.least_wait;
    if (dead && !atomic_exchange(&lq.deadlocked, 1) && !sched_stopped()) {
        size_t cap = (size_t)n * (ERR_MAX + 64) + 1;
        char *text = malloc(cap);
        if (text) {
            lq_wait_lines(v, 0, n, text, cap);
            goLqcdDeadlock(text, NULL, n);
        }
        free(text);
        sched_stop();
    }
    free(v);
    return dead;
}
