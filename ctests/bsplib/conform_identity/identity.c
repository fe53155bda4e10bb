/*
 * A BSP process is a thread of its own (MulticoreBSP's model), under every
 * scheduler: each core has its own _Thread_local/__thread variables, errno,
 * pthread_self() and pthread key values, all stable across bsp_sync and
 * the other calls, also where the compiler keeps a variable's address in
 * a register across them (built at -O0 to -O3 by TestThreadIdentity); pid
 * 0 is the thread that called bsp_begin, with main's thread-local values,
 * The LQCD API's waits and collectives inside the section keep them too.
 * and main finds pid 0's values after bsp_end. An optional argument names
 * a shared library to dlopen whose own __thread variable is checked too
 * (ctests/identity/dltls.c). Each core prints one line; a failed check
 * prints what and where.
 */
#include <bsp.h>
#include <dlfcn.h>
#include <lqcd_msg.h>
#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { STEPS = 200 };

static _Thread_local long counter;
static _Thread_local unsigned me = 999;
static __thread char name[24];
static _Thread_local int main_mark;
static pthread_key_t key_before, key_inside;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_t main_thread;
static int main_cores; /* cores of this process that ran on main's thread */
static const char *dl_path;
static void (*dl_set)(long);
static long (*dl_get)(void);
static long *(*dl_addr)(void);

static void make_key(void)
{
    pthread_key_create(&key_inside, NULL);
}

static int failed;

static void check(int ok, const char *what, int step)
{
    if (!ok && failed++ < 3)
        printf("core %u: FAIL %s at step %d\n", (unsigned)bsp_pid(), what, step);
}

static void load_dl(void)
{
    void *h = dlopen(dl_path, RTLD_NOW);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        exit(1);
    }
    *(void **)&dl_set = dlsym(h, "dltls_set");
    *(void **)&dl_get = dlsym(h, "dltls_get");
    *(void **)&dl_addr = dlsym(h, "dltls_addr");
}

static void spmd(void)
{
    bsp_begin(bsp_nprocs());
    unsigned p = bsp_pid(), n = bsp_nprocs();
    pthread_t self = pthread_self();
    int on_main = pthread_equal(self, main_thread);
    check(p != 0 || on_main, "pid 0 runs on the thread that called bsp_begin", -1);
    check(main_mark == (on_main ? 42 : 0), "main's _Thread_local seen by its thread only", -1);
    if (on_main)
        __atomic_fetch_add(&main_cores, 1, __ATOMIC_SEQ_CST);
    long base = counter; /* pid 0: what main stored */
    long *addr = &counter; /* kept in a register across the calls at -O2 */
    int *err = &errno;
    me = p;
    snprintf(name, sizeof name, "core%u", p);
    pthread_setspecific(key_before, (void *)(uintptr_t)(p + 1));
    pthread_once(&key_once, make_key);
    pthread_setspecific(key_inside, (void *)(uintptr_t)(p + 100));
    locale_t own = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    uselocale(own);
    long *dl = NULL;
    if (dl_set) {
        dl_set((long)p * 7);
        dl = dl_addr();
    }
    /* every core's pthread_self, for the distinctness check, and its
       process: a thread's id means something only in its own process
       (under mpirun, cores of two ranks may have equal ones) */
    pthread_t *selves = calloc(n, sizeof *selves);
    pid_t *procs = calloc(n, sizeof *procs), proc = getpid();
    bsp_push_reg(selves, (bsp_size_t)(n * sizeof *selves));
    bsp_push_reg(procs, (bsp_size_t)(n * sizeof *procs));
    int word = 0;
    bsp_push_reg(&word, sizeof word);
    bsp_sync();
    for (unsigned q = 0; q < n; q++) {
        bsp_put(q, &self, selves, (bsp_size_t)(p * sizeof self), sizeof self);
        bsp_put(q, &proc, procs, (bsp_size_t)(p * sizeof proc), sizeof proc);
    }
    bsp_sync();
    int same = 0;
    for (unsigned q = 0; q < n; q++)
        same += pthread_equal(selves[q], self) && procs[q] == proc && q != p;
    check(same == 0, "pthread_self differs between cores", -1);
    check(pthread_equal(selves[p], self), "own pthread_self delivered", -1);
    for (int s = 0; s < STEPS; s++) {
        errno = (int)p * 1000 + s;
        (*addr)++;
        counter++;
        int got = 0;
        switch (s % 4) { /* calls besides bsp_sync that may switch cores */
        case 0:
            bsp_put((p + 1) % n, &s, &word, 0, sizeof s);
            break;
        case 1:
            bsp_get((p + 1) % n, &word, 0, &got, sizeof got);
            break;
        case 2:
            bsp_send((p + 1) % n, NULL, &s, sizeof s);
            break;
        default: {
            bsp_nprocs_t packets;
            bsp_size_t bytes;
            bsp_qsize(&packets, &bytes);
            for (bsp_nprocs_t i = 0; i < packets; i++)
                bsp_move(&got, sizeof got);
        }
        }
        check(*err == (int)p * 1000 + s, "errno across a call", s);
        bsp_sync();
        check(errno == (int)p * 1000 + s, "errno across bsp_sync", s);
        check(*err == errno, "errno's address", s);
        check(counter == base + 2 * (s + 1), "_Thread_local counter", s);
        check(addr == &counter, "a _Thread_local's address", s);
        check(me == p, "_Thread_local pid", s);
        char want[24];
        snprintf(want, sizeof want, "core%u", p);
        check(strcmp(name, want) == 0, "__thread array", s);
        check(pthread_equal(pthread_self(), self), "pthread_self", s);
        check(pthread_getspecific(key_before) == (void *)(uintptr_t)(p + 1), "key created before the section", s);
        check(pthread_getspecific(key_inside) == (void *)(uintptr_t)(p + 100), "key created inside", s);
        check(uselocale((locale_t)0) == own, "uselocale", s);
        if (dl) {
            check(dl_get() == (long)p * 7 + s, "a dlopen'ed library's __thread variable", s);
            check(dl_addr() == dl, "its address", s);
            dl_set(dl_get() + 1);
        }
    }
    /* the LQCD API's waits and collectives: a ring, both ways */
    initMachine();
    int dims[1] = {(int)n};
    declareTopology(dims, 1, (int)p);
    long out[2], in[2];
    void *recv[2], *send[2];
    for (int d = 0; d < 2; d++) {
        recv[d] = declareReceive(&in[d], sizeof in[d], 10 + d);
        send[d] = declareSendRelative(&out[d], sizeof out[d], d ? -1 : +1, 10 + d);
    }
    waitForBarrier();
    for (int it = 0; it < 20; it++) {
        errno = (int)p + it;
        for (int d = 0; d < 2; d++) {
            out[d] = (long)p * 100 + it;
            startReceive(recv[d]);
        }
        for (int d = 0; d < 2; d++)
            startSend(send[d]);
        void *all[4] = {recv[0], recv[1], send[0], send[1]};
        check(waitForMultiple(all, 4, -1) == 1, "waitForMultiple", it);
        check(errno == (int)p + it && me == p && pthread_equal(pthread_self(), self), "identity across LQCD waits", it);
        check(sumInt(1) == (int)n && me == p && *addr == counter && pthread_equal(pthread_self(), self),
              "identity across an LQCD sum", it);
        check(errno == (int)p + it, "errno across an LQCD sum", it);
    }
    shutdownMachine();
    uselocale(LC_GLOBAL_LOCALE);
    freelocale(own);
    bsp_pop_reg(&word);
    bsp_pop_reg(selves);
    bsp_pop_reg(procs);
    bsp_sync();
    free(selves);
    free(procs);
    printf("core %u: %s\n", p, failed ? "failed" : "thread identity ok");
    bsp_end();
}

int main(int argc, char **argv)
{
    main_thread = pthread_self();
    main_mark = 42;
    counter = 1000;
    pthread_key_create(&key_before, NULL);
    if (argc > 1) {
        dl_path = argv[1];
        load_dl();
    }
    bsp_init(spmd, argc, argv);
    spmd();
    /* back on main's thread, with pid 0's thread-local values */
    int ok = pthread_equal(pthread_self(), main_thread) && main_mark == 42 && me == 0 &&
             counter == 1000 + 2 * STEPS && main_cores == 1;
    if (!ok) {
        fprintf(stderr, "after bsp_end: main's thread %d, mark %d, me %u, counter %ld, cores on main's thread %d\n",
                pthread_equal(pthread_self(), main_thread), main_mark, me, counter, main_cores);
        return 1;
    }
    return 0;
}
