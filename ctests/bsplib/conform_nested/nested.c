/*
 * Nested SPMD sections (MulticoreBSP 2.0's hierarchical bsp_begin): a core
 * of a running section calls bsp_init and bsp_begin(P) and becomes pid 0
 * of a section of P cores of its own; every BSPlib call refers to that
 * section until its bsp_end, after which the core is back in its outer
 * section with that section's state.
 *
 * Every core of an outer section of OUTER cores leaves state pending in
 * its section (a registration, a put of this superstep, a message queued
 * for it, a tag size) and then starts a nested section of INNER cores, all
 * at once; the nested pid 0 of outer core 0 nests once more (a third
 * level). Inside, each nested section runs bsp_put, bsp_get, bsp_hpput,
 * bsp_direct_get and tagged messages over its own registrations, counts a
 * _Thread_local variable across its syncs and checks thread identity: pid
 * 0 is the thread that called bsp_begin (same pthread_self, same
 * thread-local values), the others are threads of their own. Back in the
 * outer section each core checks that its state is intact and that the
 * outer registration, put and messages still work; then every core nests
 * a second time (sections one after the other on one core). Lines are
 * compared sorted; a failed check prints what and where.
 */
#include <bsp.h>
#include <lqcd_msg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { OUTER = 4, INNER = 3, DEEP = 2, STEPS = 20, MAXT = 64 };

static _Thread_local long tl_counter;   /* counts syncs, per thread */
static _Thread_local unsigned tl_outer; /* the outer pid, set in the outer section */
static _Thread_local int tl_level;      /* set in the outer section only */

/* The threads of the outer cores (0..OUTER-1) and of the other cores of
 * each nested section (a slot range per section, pid 0 left out): the
 * threads of one section and the outer ones are alive together, so they
 * must differ (those of sections one after the other may be reused). */
static pthread_t threads[MAXT];
static int failed;

static void check(int ok, const char *what, unsigned outer, int level, unsigned pid)
{
    if (!ok && __atomic_fetch_add(&failed, 1, __ATOMIC_SEQ_CST) < 5)
        printf("FAIL outer %u level %d pid %u: %s\n", outer, level, pid, what);
}

/* The nested section's communication, the same at every level: a ring of
 * puts, gets, hpputs, direct gets and messages over registrations of its
 * own, which the outer section's registrations must not disturb. */
static void ring(unsigned outer, int level)
{
    unsigned p = bsp_pid(), n = bsp_nprocs();
    unsigned next = (p + 1) % n, prev = (p + n - 1) % n;
    long slot[2] = {-1, -1}, got = -1, direct = -1, mine = 1000 * level + p;
    bsp_push_reg(slot, sizeof slot);
    bsp_push_reg(&mine, sizeof mine);
    size_t tag = sizeof(unsigned);
    bsp_set_tagsize(&tag);
    bsp_sync();
    tl_counter++;
    bsp_put(next, &mine, slot, 0, sizeof mine);
    bsp_get(prev, &mine, 0, &got, sizeof got);
    unsigned t = p;
    long payload = mine * 10;
    bsp_send(next, &t, &payload, sizeof payload);
    bsp_sync();
    tl_counter++;
    check(slot[0] == 1000 * level + (long)prev, "bsp_put from the previous core", outer, level, p);
    check(got == 1000 * level + (long)prev, "bsp_get from the previous core", outer, level, p);
    bsp_nprocs_t msgs;
    bsp_size_t bytes;
    bsp_qsize(&msgs, &bytes);
    check(msgs == 1 && bytes == sizeof(long), "one message queued", outer, level, p);
    bsp_size_t status;
    unsigned tagv = 99;
    bsp_get_tag(&status, &tagv);
    long recv = 0;
    bsp_move(&recv, sizeof recv);
    check(tagv == prev && recv == (1000 * level + (long)prev) * 10, "message from the previous core", outer, level, p);
    bsp_hpput(next, &mine, slot, sizeof(long), sizeof mine);
    bsp_sync();
    tl_counter++;
    check(slot[1] == 1000 * level + (long)prev, "bsp_hpput from the previous core", outer, level, p);
    bsp_direct_get(prev, &mine, 0, &direct, sizeof direct);
    check(direct == 1000 * level + (long)prev, "bsp_direct_get from the previous core", outer, level, p);
    for (int s = 0; s < STEPS; s++) {
        bsp_sync();
        tl_counter++;
    }
    bsp_pop_reg(&mine);
    bsp_pop_reg(slot);
    bsp_sync();
    tl_counter++;
}

/* The identity checks of a nested core; caller is the thread that
 * called bsp_begin, outer_value its tl_outer then. */
static void identity(unsigned outer, int level, pthread_t caller, unsigned outer_value, int slot)
{
    unsigned p = bsp_pid();
    pthread_t me = pthread_self();
    if (p == 0) {
        check(pthread_equal(me, caller), "pid 0 is the thread that called bsp_begin", outer, level, p);
        check(tl_outer == outer_value, "pid 0 sees its thread-local values", outer, level, p);
    } else {
        check(!pthread_equal(me, caller), "another core is another thread", outer, level, p);
        check(tl_outer == 0 && tl_counter == 0, "another core's thread-local values start at 0", outer, level, p);
        threads[slot + (int)p] = me;
    }
}

/* After a sync of the section: a core other than pid 0 is none of the
 * outer threads and none of its section's other threads. */
static void distinct(unsigned outer, int level, int slot)
{
    unsigned p = bsp_pid(), n = bsp_nprocs();
    if (p == 0)
        return;
    pthread_t me = pthread_self();
    int same = 0;
    for (int o = 0; o < OUTER; o++)
        same |= pthread_equal(me, threads[o]) != 0;
    for (unsigned q = 1; q < n; q++)
        same |= q != p && pthread_equal(me, threads[slot + (int)q]) != 0;
    check(!same, "each core of a nested section is a thread of its own", outer, level, p);
}

static int deep_slot;
static pthread_t deep_caller;

static void deep_spmd(void)
{
    bsp_begin(DEEP);
    identity(0, 3, deep_caller, 0, deep_slot);
    long before = tl_counter;
    ring(0, 3);
    distinct(0, 3, deep_slot);
    check(tl_counter == before + STEPS + 4, "the _Thread_local counter of a level-3 core", 0, 3, bsp_pid());
    if (bsp_pid() != 0)
        printf("level 3 core %u of %u: ok\n", bsp_pid(), bsp_nprocs());
    bsp_end();
}

/* What each nested section runs; nested_caller[o] is outer core o's thread. */
static pthread_t nested_caller[OUTER];

static void inner_body(unsigned outer, int round)
{
    unsigned p = bsp_pid();
    check(bsp_nprocs() == INNER, "bsp_nprocs is the nested section's", outer, 2, p);
    int slot = OUTER + (round * OUTER + (int)outer) * INNER;
    identity(outer, 2, nested_caller[outer], outer, slot);
    long before = tl_counter, deep_steps = 0;
    check(initMachine() == -1 && getErrorNumber() == LQCD_ERR_NOT_CORE, "the LQCD API is refused in a nested section",
          outer, 2, p);
    ring(outer, 2);
    distinct(outer, 2, slot);
    if (outer == 0 && p == 0 && round == 0) {
        /* a third level, from a nested section's pid 0 */
        deep_caller = pthread_self();
        deep_slot = OUTER + 2 * OUTER * INNER;
        unsigned saved = tl_outer;
        tl_outer = 0; /* what deep_spmd expects pid 0 to see */
        bsp_init(deep_spmd, 0, NULL);
        deep_spmd();
        tl_outer = saved;
        check(bsp_pid() == 0 && bsp_nprocs() == INNER, "back in level 2 after a level-3 section", outer, 2, p);
        printf("level 3 core 0 of %d: ok\n", DEEP);
        deep_steps = STEPS + 4; /* its syncs counted on this thread */
    }
    bsp_sync(); /* the level-2 section goes on after its pid 0's level-3 section */
    tl_counter++;
    check(tl_counter == before + STEPS + 5 + deep_steps, "the _Thread_local counter of a nested core", outer, 2, p);
    printf("outer %u round %d: nested core %u of %u ok\n", outer, round, p, bsp_nprocs());
}

/* Each outer core names its own SPMD function in bsp_init, which tells
 * the nested section's other cores whose section they are; its round is
 * inner_round_of[o]. */
#define INNER_ENTRY(o)                              \
    static void inner_entry_##o(void)               \
    {                                               \
        bsp_begin(INNER);                           \
        inner_body(o, inner_round_of[o]);           \
        bsp_end();                                  \
    }
static int inner_round_of[OUTER];
INNER_ENTRY(0)
INNER_ENTRY(1)
INNER_ENTRY(2)
INNER_ENTRY(3)
static void (*const inner_entries[OUTER])(void) = {inner_entry_0, inner_entry_1, inner_entry_2, inner_entry_3};

static long outer_array[OUTER];

static void outer_spmd(void)
{
    bsp_begin(OUTER);
    unsigned p = bsp_pid(), n = bsp_nprocs();
    tl_outer = p;
    tl_level = 1;
    threads[p] = pthread_self();
    nested_caller[p] = pthread_self();
    bsp_push_reg(outer_array, sizeof outer_array);
    size_t tag = 2 * sizeof(int);
    bsp_set_tagsize(&tag);
    bsp_sync();
    for (int round = 0; round < 2; round++) {
        /* left pending across the nested section: a message queued here, a
         * put of this superstep, a registration in force */
        int tagv[2] = {(int)p, round};
        long payload = 7 * (long)p + round;
        bsp_send((p + 1) % n, tagv, &payload, sizeof payload);
        bsp_sync();
        long value = 100 * round + p;
        bsp_put((p + 1) % n, &value, outer_array, (long)p * (long)sizeof(long), sizeof value);
        long outer_counter = tl_counter;

        inner_round_of[p] = round;
        bsp_init(inner_entries[p], 0, NULL);
        check(bsp_pid() == p && bsp_nprocs() == n, "bsp_init alone leaves the section as it is", p, 1, p);
        inner_entries[p]();

        check(bsp_pid() == p && bsp_nprocs() == n, "bsp_pid and bsp_nprocs are the outer ones again", p, 1, p);
        check(pthread_equal(pthread_self(), nested_caller[p]), "the same thread after the nested section", p, 1, p);
        check(tl_outer == p && tl_level == 1, "outer thread-local values after the nested section", p, 1, p);
        long deep = p == 0 && round == 0 ? STEPS + 4 : 0; /* outer core 0 was pid 0 of the level-3 section too */
        check(tl_counter == outer_counter + STEPS + 5 + deep, "pid 0's counter went on in the nested section", p, 1, p);
        bsp_nprocs_t msgs;
        bsp_size_t bytes;
        bsp_qsize(&msgs, &bytes);
        check(msgs == 1 && bytes == sizeof(long), "the outer message is still queued", p, 1, p);
        bsp_size_t status;
        int got_tag[2] = {-1, -1};
        bsp_get_tag(&status, got_tag);
        long got = 0;
        bsp_move(&got, sizeof got);
        unsigned prev = (p + n - 1) % n;
        check(got_tag[0] == (int)prev && got_tag[1] == round && got == 7 * (long)prev + round,
              "the outer message and its tag size", p, 1, p);
        bsp_sync(); /* the put of before the nested section lands */
        check(outer_array[prev] == 100 * round + (long)prev, "the outer put issued before the nested section", p, 1, p);
        long back = -1;
        bsp_get(prev, outer_array, (long)((p + n - 2) % n) * (long)sizeof(long), &back, sizeof back);
        bsp_sync();
        check(back == 100 * round + (long)((p + n - 2) % n), "the outer registration after the nested section", p, 1, p);
        printf("outer %u round %d: back in the outer section ok\n", p, round);
    }
    bsp_end();
}

int main(void)
{
    pthread_t main_thread = pthread_self();
    bsp_init(outer_spmd, 0, NULL);
    outer_spmd();
    check(pthread_equal(pthread_self(), main_thread) && tl_outer == 0 && tl_level == 1,
          "main goes on as pid 0 of the outer section", 0, 0, 0);
    printf("failed checks: %d\n", failed);
    return 0;
}
