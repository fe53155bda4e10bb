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
    return ch->magic == SEND_MAGIC ? st == CH_PENDING : st == CH_ARMED;
}

struct core_look {
    unsigned seq;
    int where, arrivals;
};

/* Every core's state; 1 when all cores are blocked: asleep in an LQCD wait
 * (at least one) that no core can end, waiting in a barrier round that one
 * of those never reaches, or finished. The LQCD waiters run no more, as
 * nothing they wait for can happen without a core that runs; the barrier
 * round they have not reached never ends. */
static int look_all(struct core_look *v)
{
    int n = lq.n, waiters = 0, least = INT_MAX;
    for (int p = 0; p < n; p++) {
        v[p].seq = atomic_load(&lq.cores[p].wait_seq);
        v[p].where = sched_where(p);
        v[p].arrivals = sched_arrivals(p);
    }
    /* the cheap looks first: a halo exchange's cores sleep often, and
       most of the time some core runs */
    for (int p = 0; p < n; p++) {
        if (v[p].seq & 1) {
            if (!stuck(atomic_load(&lq.cores[p].waited)))
                return 0; /* it will complete */
            waiters++;
            least = v[p].arrivals < least ? v[p].arrivals : least;
        } else if (v[p].where != WHERE_FINISHED && !in_barrier(v[p].where)) {
            return 0; /* it runs */
        }
    }
    if (!waiters)
        return 0;
    for (int p = 0; p < n; p++)
        if (!(v[p].seq & 1) && in_barrier(v[p].where) && v[p].arrivals <= least)
            return 0; /* a round every waiter passed: released, not yet running */
    for (int p = 0; p < n; p++) {
        char what[ERR_MAX];
        int code;
        if ((v[p].seq & 1) && lq_explain_text(atomic_load(&lq.cores[p].waited), what, sizeof what, &code))
            return 0; /* it fails at its next look: the other side left */
    }
    return 1;
}

/* Called by a core about to sleep in an LQCD wait (its wait_seq odd):
 * when every core is blocked for good, reports the deadlock, naming each
 * LQCD wait, stops the run and returns 1. Looks twice and compares, so
 * that a core that ran in between (its wait_seq, place or arrivals
 * changed) is seen. In one process only: across MPI ranks a message from
 * another rank may end a wait (the watchdog, EBSP_TIMEOUT, reports there). */
int lq_deadlock_check(void)
{
    int n = lq.n;
    if (lq.ranks || n <= 0 || atomic_load(&lq.deadlocked))
        return 0;
    struct core_look *v = malloc(2 * (size_t)n * sizeof *v);
    if (!v)
        return 0;
    int dead = look_all(v) && look_all(v + n) && !memcmp(v, v + n, (size_t)n * sizeof *v);
    if (dead && !atomic_exchange(&lq.deadlocked, 1) && !sched_stopped()) {
        size_t cap = (size_t)n * (ERR_MAX + 32) + 1, at = 0;
        char *text = malloc(cap);
        for (int p = 0; text && p < n; p++) {
            if (!(v[p].seq & 1))
                continue;
            char what[ERR_MAX];
            int code;
            lq_explain_text(atomic_load(&lq.cores[p].waited), what, sizeof what, &code);
            at += (size_t)snprintf(text + at, cap - at, "  core %02d in %s: %s\n", p,
                                   atomic_load(&lq.cores[p].wait_call), what);
        }
        if (text)
            goLqcdDeadlock(text);
        free(text);
        sched_stop();
    }
    free(v);
    return dead;
}
