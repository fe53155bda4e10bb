/*
 * The search for a deadlock across ranks: every core of every rank
 * blocked, some in an LQCD wait without limit, and no message of a
 * channel in flight between the ranks, the same deadlock that deadlock.c
 * finds in one process, reported the same way, once, by rank 0.
 *
 * Nothing is done while some core runs. A waiter that finds every core of
 * its rank blocked nudges rank 0 (again when that changed, else less and
 * less often). Rank 0 then runs a wave: it asks every rank for a look at
 * its cores (PROBE); each answers (REPORT) whether they are all blocked,
 * with the messages of channels it sent and took in so far, and keeps
 * what it saw. When every rank is blocked, the sums of messages sent and
 * taken are equal, and some core of the job waits in an LQCD wait that
 * no barrier round can release, rank 0 asks again (CONFIRM): a rank
 * answers yes (CONFIRMED, with where its cores are and its waits) only
 * when nothing changed since its REPORT. Nothing changed between the two
 * looks of any rank and nothing was in flight at the first, so nothing
 * can end a wait any more (the four-counter rule of termination
 * detection); rank 0 reports and stops the run, which ends the job.
 *
 * Every message is handled by lq_poll (ranks.c), one thread at a time,
 * which a waiting core runs between its sleeps and a rank whose cores
 * wait in a barrier runs while it waits for the other ranks.
 */
#include "lqcd_face.h"

/* A rank's answer to a PROBE, after its head. */
struct wave_report {
    int32_t blocked, waiters, least_wait, least_barrier;
    uint32_t sent, taken;
};

/* The most a nudge waits for a rank whose state does not change. */
#define NUDGE_GAP_MAX_NS 1000000000u

/* Held by the waiter that nudges; another one looking then does not. */
static pthread_mutex_t nudge_lock = PTHREAD_MUTEX_INITIALIZER;

static void send_head(int kind, int wave, int err, int rank)
{
    struct wire_head h = {.kind = kind, .src = ebsp_world_rank, .id = wave, .err = err};
    world_send_small(&h, (int)sizeof h, rank);
}

static uint64_t hash_look(const struct core_look *v, int count, unsigned sent)
{
    uint64_t x = lq_hash_bits(sent);
    for (int i = 0; i < count; i++)
        x = lq_hash_bits(x ^ ((uint64_t)v[i].seq << 32 | (uint64_t)(uint32_t)v[i].where) ^ (uint64_t)v[i].arrivals << 16);
    return x;
}

/* Called by a core about to sleep in an LQCD wait without limit, across
 * ranks, at most every DEADLOCK_LOOK_NS: nudges rank 0 when every core of
 * this rank is blocked. */
void lq_deadlock_nudge(void)
{
    int count = lq.count;
    if (!lq.ranks || count <= 0 || atomic_load(&lq.deadlocked))
        return;
    struct core_look *v = malloc(2 * (size_t)count * sizeof *v);
    if (!v)
        return;
    struct look_verdict seen;
    unsigned sent = atomic_load(&lq.wire_sent);
    if (lq_look_twice(v, lq.first, count, &seen) && pthread_mutex_trylock(&nudge_lock) == 0) {
        struct deadlock_search *s = &lq.search;
        uint64_t hash = hash_look(v, count, sent), now = ebsp_now_ns(), gap = s->nudge_gap;
        int nudge = 1;
        if (hash != s->nudged_hash)
            gap = 0;
        else if (now - s->nudged_at < gap)
            nudge = 0;
        else
            gap = gap < DEADLOCK_LOOK_NS ? DEADLOCK_LOOK_NS : gap * 2 > NUDGE_GAP_MAX_NS ? NUDGE_GAP_MAX_NS : gap * 2;
        if (nudge) {
            s->nudged_hash = hash;
            s->nudged_at = now;
            s->nudge_gap = gap;
            send_head(WIRE_NUDGE, 0, 0, 0);
        }
        pthread_mutex_unlock(&nudge_lock);
    }
    free(v);
}

/* ---- every rank: the answers ---- */

/* A look at this rank's cores for wave (v: 2 * count), with the counts of
 * messages before and after: 1 when they are blocked and no message of
 * this rank's came or went meanwhile. */
static int look_now(struct core_look *v, struct look_verdict *seen, unsigned *sent)
{
    *sent = atomic_load(&lq.wire_sent);
    int blocked = lq_look_twice(v, lq.first, lq.count, seen);
    return blocked && atomic_load(&lq.wire_sent) == *sent;
}

static void on_probe(int wave)
{
    struct deadlock_search *s = &lq.search;
    int count = lq.count;
    if (!s->seen && !(s->seen = malloc(2 * (size_t)count * sizeof *s->seen)))
        return; /* no answer: no deadlock is found */
    struct look_verdict seen;
    unsigned sent;
    s->seen_blocked = look_now(s->seen, &seen, &sent);
    s->seen_wave = wave;
    s->seen_sent = sent;
    s->seen_taken = lq.wire_taken;
    struct {
        struct wire_head h;
        struct wave_report r;
    } m = {.h = {.kind = WIRE_REPORT, .src = ebsp_world_rank, .id = wave},
           .r = {.blocked = s->seen_blocked, .waiters = seen.waiters, .least_wait = seen.least_wait,
                 .least_barrier = seen.least_barrier, .sent = sent, .taken = s->seen_taken}};
    world_send_small(&m, (int)sizeof m, 0);
}

/* Yes when nothing changed since this rank's REPORT of wave: with where
 * its cores are (2 int32 each) and its LQCD waits, as far as they fit. */
static void on_confirm(int wave)
{
    struct deadlock_search *s = &lq.search;
    int count = lq.count;
    size_t places = 2 * (size_t)count * sizeof(int32_t);
    struct core_look *v = malloc(2 * (size_t)count * sizeof *v);
    char *m = malloc(WORLD_SMALL_MAX);
    struct look_verdict seen;
    unsigned sent;
    int yes = v && m && s->seen && s->seen_wave == wave && s->seen_blocked && look_now(v, &seen, &sent) &&
              sent == s->seen_sent && lq.wire_taken == s->seen_taken &&
              !memcmp(v, s->seen, (size_t)count * sizeof *v);
    if (!m) {
        send_head(WIRE_CONFIRMED, wave, 0, 0);
        free(v);
        return;
    }
    struct wire_head *h = (struct wire_head *)m;
    *h = (struct wire_head){.kind = WIRE_CONFIRMED, .src = ebsp_world_rank, .id = wave, .err = yes};
    size_t len = sizeof *h;
    if (yes && len + places + 1 <= WORLD_SMALL_MAX) { /* else rank 0 knows them not */
        goLqcdPlaces(lq.first, count, (int32_t *)(m + len));
        h->nbytes = count;
        len += places;
        len += lq_wait_lines(v, lq.first, count, m + len, WORLD_SMALL_MAX - len) + 1;
    }
    world_send_small(m, (int)len, 0);
    free(m);
    free(v);
}

/* ---- rank 0: the waves ---- */

static void begin_wave(void)
{
    struct deadlock_search *s = &lq.search;
    s->wave++;
    s->phase = 1;
    s->got = 0;
    s->ok = 1;
    s->again = 0;
    s->sent = s->taken = 0;
    s->waiters = 0;
    s->least_wait = s->least_barrier = INT_MAX;
    for (int r = 0; r < lq.ranks; r++)
        send_head(WIRE_PROBE, s->wave, 0, r);
}

/* The wave failed (something may still run): another one when a nudge
 * came meanwhile. */
static void end_wave(void)
{
    struct deadlock_search *s = &lq.search;
    s->phase = 0;
    if (s->again)
        begin_wave();
}

static void on_report(const struct wire_head *h, const struct wave_report *r)
{
    struct deadlock_search *s = &lq.search;
    if (s->phase != 1 || h->id != s->wave)
        return;
    s->ok &= r->blocked != 0;
    s->sent += r->sent;
    s->taken += r->taken;
    s->waiters += r->waiters;
    s->least_wait = r->least_wait < s->least_wait ? r->least_wait : s->least_wait;
    s->least_barrier = r->least_barrier < s->least_barrier ? r->least_barrier : s->least_barrier;
    if (++s->got < lq.ranks)
        return;
    if (!s->ok || s->sent != s->taken || s->waiters == 0 || s->least_barrier <= s->least_wait) {
        end_wave();
        return;
    }
    size_t places = 2 * (size_t)lq.n;
    if (!s->places && !(s->places = malloc(places * sizeof *s->places))) {
        end_wave();
        return;
    }
    for (size_t i = 0; i < places; i++)
        s->places[i] = -1;
    s->details_len = 0;
    s->phase = 2;
    s->got = 0;
    for (int q = 0; q < lq.ranks; q++)
        send_head(WIRE_CONFIRM, s->wave, 0, q);
}

/* Keeps rank `from`'s places and wait lines (after h, len bytes in all). */
static void keep_confirmed(const struct wire_head *h, int len, int from)
{
    struct deadlock_search *s = &lq.search;
    int first = from * ebsp_world_per_rank, count = h->nbytes;
    size_t places = 2 * (size_t)count * sizeof(int32_t);
    if (count <= 0 || first + count > lq.n || sizeof *h + places >= (size_t)len)
        return;
    memcpy(s->places + 2 * (size_t)first, h + 1, places);
    const char *lines = (const char *)(h + 1) + places;
    size_t n = strnlen(lines, (size_t)len - sizeof *h - places);
    char *d = realloc(s->details, s->details_len + n + 1);
    if (!d)
        return;
    memcpy(d + s->details_len, lines, n);
    s->details = d;
    s->details_len += n;
    d[s->details_len] = 0;
}

static void on_confirmed(const struct wire_head *h, int len, int from)
{
    struct deadlock_search *s = &lq.search;
    if (s->phase != 2 || h->id != s->wave)
        return;
    s->ok &= h->err == 1;
    if (s->ok)
        keep_confirmed(h, len, from);
    if (++s->got < lq.ranks)
        return;
    if (!s->ok) {
        end_wave();
        return;
    }
    s->phase = 0;
    if (!atomic_exchange(&lq.deadlocked, 1) && !sched_stopped()) {
        goLqcdDeadlock(s->details ? s->details : (char *)"", s->places, lq.n);
        sched_stop(); /* the run's end ends the job: the other ranks end quietly */
    }
}

/* A message of the search (h, len bytes from rank `from`): 1 when it was
 * one, handled. */
int lq_deadlock_message(const struct wire_head *h, int len, int from)
{
    switch (h->kind) {
    case WIRE_NUDGE:
        if (ebsp_world_rank == 0 && !atomic_load(&lq.deadlocked)) {
            if (lq.search.phase)
                lq.search.again = 1;
            else
                begin_wave();
        }
        return 1;
    case WIRE_PROBE:
        on_probe(h->id);
        return 1;
    case WIRE_CONFIRM:
        on_confirm(h->id);
        return 1;
    case WIRE_REPORT:
        if (ebsp_world_rank == 0 && len >= (int)(sizeof *h + sizeof(struct wave_report)))
            on_report(h, (const struct wave_report *)(h + 1));
        return 1;
    case WIRE_CONFIRMED:
        if (ebsp_world_rank == 0)
            on_confirmed(h, len, from);
        return 1;
    }
    return 0;
}
