/*
 * Misuse of the BSPlib face, one case per run: `misuse CASE`. The expected
 * messages are in ctests/bsplib_test.go (misuseCases). Sections have 4
 * cores unless the case needs another count.
 */
#define _GNU_SOURCE /* quick_exit */
#include <bsp.h>
#include <lqcd_msg.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../../wild_page.h"

/* EBSP face calls, made from files that include the EBSP headers */
int ebsp_host_init(void);
int ebsp_host_begin(int n);
int ebsp_host_run_kernel_calling_bsplib(void);
int ebsp_host_load_noop(void);

static const char *which;
static int is(const char *name) { return strcmp(which, name) == 0; }

/* Called by the EBSP kernel of mix_bsplib_in_ebsp_kernel. */
void call_bsplib_sync(void)
{
    bsp_sync();
}

static int x, y;

/* The cases wild_OP and low_OP (OP: put, get, hpput, hpget, direct_get;
 * any suffix, e.g. _strict): every core registers an address where no
 * memory is (wild) or a number below 4096 (low), and core 1 then makes
 * request OP of 16 bytes at offset 8 of core 2's copy; or (getdst) gets x
 * of core 2 into that address. */
/* stack_overflow: a recursion that no core's stack holds */
static volatile int deepest = 1 << 30;

static int recurse(int depth)
{
    volatile char frame[4096];
    frame[0] = (char)depth;
    return depth >= deepest ? 0 : recurse(depth + 1) + frame[0];
}

static void *wild_variable(void)
{
    if (strncmp(which, "wild_", 5) == 0)
        return (void *)WILD_PAGE;
    if (strncmp(which, "low_", 4) == 0)
        return (void *)(uintptr_t)0x10;
    return NULL;
}

static int wild_op(const char *op)
{
    const char *rest = strchr(which, '_');
    size_t n = strlen(op);
    return wild_variable() && strncmp(rest + 1, op, n) == 0 && (rest[1 + n] == '\0' || rest[1 + n] == '_');
}

/* The cases wildmsg_tag and wildmsg_move (any suffix; _low: at 0x10):
 * core 2 reads a message's tag or payload into memory that is not there. */
static int wild_message(void)
{
    return strncmp(which, "wildmsg_", 8) == 0;
}

static void wild_request(void)
{
    void *v = wild_variable();
    char buf[16] = {0};
    if (wild_op("put"))
        bsp_put(2, buf, v, 8, sizeof buf);
    if (wild_op("get"))
        bsp_get(2, v, 8, buf, sizeof buf);
    if (wild_op("hpput"))
        bsp_hpput(2, buf, v, 8, sizeof buf);
    if (wild_op("hpget"))
        bsp_hpget(2, v, 8, buf, sizeof buf);
    if (wild_op("direct_get"))
        bsp_direct_get(2, v, 8, buf, sizeof buf);
    if (wild_op("getdst")) { /* a get into it, after one that makes later gets direct */
        bsp_get(2, &x, 0, buf, sizeof x);
        bsp_get(2, &x, 0, v, sizeof x);
    }
}

/* nested_bad_pid: core 1 of a section nested in core 1 names a core
 * that section does not have; the stop ends the program. */
static void nested_bad_pid(void)
{
    bsp_begin(2);
    if (bsp_pid() == 1)
        bsp_put(3, &y, &x, 0, sizeof y);
    bsp_sync();
    bsp_end();
}

/* nested_outer_reg: a nested section's core names x, registered in the
 * outer section only: outer registrations do not reach into a nested
 * section (as on MulticoreBSP, whose nested section has a table of its
 * own). */
static void nested_outer_reg(void)
{
    bsp_begin(2);
    if (bsp_pid() == 1)
        bsp_put(0, &y, &x, 0, sizeof y);
    bsp_sync();
    bsp_end();
}

/* nested_no_end: core 1 of a nested section returns without bsp_end
 * while pid 0 syncs; nested_loop(_pid0): core 1 (0) computes for ever
 * (EBSP_TIMEOUT). */
static void nested_stall(void)
{
    bsp_begin(2);
    if (bsp_pid() == 1 && is("nested_no_end"))
        return;
    while (bsp_pid() == 1 && is("nested_loop"))
        x++;
    while (bsp_pid() == 0 && is("nested_loop_pid0"))
        x++;
    bsp_sync();
    bsp_end();
}

/* The cases badsrc_OP[_N] (OP: put, hpput, send, hpget; any suffix):
 * core 1 makes request OP of N bytes (4 without _N) from the wild page (a
 * bsp_hpget to it), to or from core 2's x or, with N, area. */
static char area[8192];

static int bad_source(void)
{
    return strncmp(which, "badsrc_", 7) == 0;
}

static void bad_source_request(void)
{
    const char *op = which + 7, *num = strchr(op, '_');
    size_t n = num && num[1] >= '0' && num[1] <= '9' ? strtoul(num + 1, NULL, 10) : sizeof x;
    void *bad = (void *)WILD_PAGE, *var = num && n != sizeof x ? (void *)area : (void *)&x;
    if (strncmp(op, "put", 3) == 0)
        bsp_put(2, bad, var, 0, n);
    if (strncmp(op, "hpput", 5) == 0)
        bsp_hpput(2, bad, var, 0, n);
    if (strncmp(op, "send", 4) == 0)
        bsp_send(2, NULL, bad, n);
    if (strncmp(op, "hpget", 5) == 0)
        bsp_hpget(2, var, 0, bad, n);
}

static void spmd(void)
{
    bsp_begin(4);
    bsp_pid_t s = bsp_pid();
    bsp_push_reg(&x, sizeof x);
    if (bad_source())
        bsp_push_reg(area, sizeof area);
    if (wild_variable())
        bsp_push_reg(wild_variable(), 100);
    if (is("put_same_superstep") && s == 1)
        bsp_put(2, &y, &y, 0, sizeof y); /* y is not registered yet */
    bsp_sync();

    /* superstep 1 */
    if (wild_variable() && s == 1)
        wild_request();
    if (is("put_out_of_range") && s == 2)
        bsp_put(3, &y, &x, 2, sizeof y);
    if (is("get_bad_pid") && s == 3)
        bsp_get(bsp_nprocs(), &x, 0, &y, sizeof y);
    if (is("negative_size") && s == 1)
        bsp_hpput(0, &y, &x, 0, (bsp_size_t)-4);
    if (is("size_too_large") && s == 1)
        bsp_get(0, &x, 0, &y, (bsp_size_t)1 << 32);
    if (is("null_source") && s == 2)
        bsp_put(3, NULL, &x, 0, sizeof y);
    if (is("pop_unregistered") && s == 0)
        bsp_pop_reg(&y);
    if (is("push_mismatch")) {
        bsp_push_reg(&y, sizeof y);
        if (s == 2)
            bsp_push_reg(&x, sizeof x);
    }
    if (is("tagsize_mismatch")) {
        bsp_size_t t = s == 1 ? 8 : 4;
        bsp_set_tagsize(&t);
    }
    if (is("tagsize_null") && s == 3)
        bsp_set_tagsize(NULL);
    if (is("tagsize_wild") && s == 3)
        bsp_set_tagsize((size_t *)WILD_PAGE);
    if (is("abort") && s == 2)
        bsp_abort("core %u gives up: %d\n", (unsigned)s, 42);
    if (is("abort_pid0") && s == 0)
        bsp_abort("pid 0 gives up");
    if (is("begin_nested") && s == 1)
        bsp_begin(4);
    if (is("init_null_inside") && s == 0)
        bsp_init(NULL, 0, NULL);
    if (is("nested_bad_pid") && s == 1) {
        bsp_init(nested_bad_pid, 0, NULL);
        nested_bad_pid();
    }
    if (is("nested_outer_reg") && s == 3) {
        bsp_init(nested_outer_reg, 0, NULL);
        nested_outer_reg();
    }
    if ((is("nested_no_end") || is("nested_loop") || is("nested_loop_pid0")) && s == 2) {
        bsp_init(nested_stall, 0, NULL);
        nested_stall();
    }
    if (is("return_without_end") && s == 2)
        return;
    if (is("end_while_others_sync") && s == 2)
        bsp_end();
    if (is("lqcd_deadlock") && s == 1) { /* waits for ever for a send core 0 declared, never started */
        initMachine();
        static int in;
        void *rx = declareReceive(&in, sizeof in, 7);
        startReceive(rx);
        waitFor(rx, -1);
    }
    if (is("lqcd_deadlock") && s == 0) {
        static int out;
        initMachine();
        declareSendTo(&out, sizeof out, 1, 7);
    }
    if (is("exit_inside") && s == 0)
        exit(3);
    if (is("loop") && s == 1)
        for (volatile int i = 0;; i++)
            ;
    if (is("loop_pid0") && s == 0)
        for (volatile int i = 0;; i++)
            ;
    if (is("crash") && s == 3)
        *(volatile int *)(uintptr_t)8 = 1;
    if ((is("abort_libc") || is("abort_libc_strict")) && s == 2)
        abort();
    if (is("stack_overflow") && s == 3)
        printf("%d\n", recurse(0));
    if (is("raise_term") && s == 2)
        raise(SIGTERM);
    if (is("raise_usr1_strict") && s == 2)
        raise(SIGUSR1);
    if ((is("pthread_exit") || is("pthread_exit_strict")) && s == 2)
        pthread_exit(NULL); /* the other cores wait in bsp_sync for it */
    if ((is("crash_in_call") || is("crash_in_call_strict")) && s == 1)
        bsp_abort((const char *)WILD_PAGE); /* a format string is not checked: the crash names the call */
    if ((is("pthread_exit_pid0") || is("pthread_exit_pid0_strict")) && s == 0)
        pthread_exit(NULL); /* the program's main thread */
    if ((is("_exit") || is("_exit_strict")) && s == 2)
        _exit(5);
    if ((is("_Exit") || is("_Exit_strict")) && s == 1)
        _Exit(6);
    if ((is("quick_exit") || is("quick_exit_strict")) && s == 3)
        quick_exit(7);
    if ((is("call_no_code") || is("call_no_code_strict")) && s == 1)
        ((void (*)(void))(uintptr_t)0x5000)();
    if (bad_source() && s == 1)
        bad_source_request();
    if (is("mix_ebsp_init") && s == 0)
        printf("$00: EBSP bsp_init returned %d\n", ebsp_host_init());
    if (is("mix_ebsp_begin") && s == 0)
        ebsp_host_begin(2);

    /* the message calls' arguments (the queues are empty here) */
    char buf[8];
    void *tag_at, *payload_at;
    bsp_size_t status, bytes;
    bsp_nprocs_t count;
    if (is("get_tag_status_null") && s == 1)
        bsp_get_tag(NULL, buf);
    /* results written through pointers to memory that is not there */
    if (is("get_tag_status_wild") && s == 1)
        bsp_get_tag((bsp_size_t *)WILD_PAGE, buf);
    if (is("qsize_wild") && s == 2)
        bsp_qsize((bsp_nprocs_t *)WILD_PAGE, (bsp_size_t *)WILD_PAGE);
    if (is("hpmove_wild")) {
        bsp_send(s, NULL, buf, sizeof buf); /* a message to hold */
        bsp_sync();
        if (s == 3)
            bsp_hpmove((void **)WILD_PAGE, (void **)WILD_PAGE);
    }
    if (is("get_tag_tag_null") || wild_message()) {
        bsp_size_t t = 4;
        bsp_set_tagsize(&t); /* from the sync on */
    }
    if (is("hpmove_tag_null") && s == 3)
        bsp_hpmove(NULL, &payload_at);
    if (is("hpmove_payload_null") && s == 0)
        bsp_hpmove(&tag_at, NULL);
    if ((is("move_empty") || is("move_empty_unchecked")) && s == 2)
        bsp_move(buf, sizeof buf);
    if (is("move_null") && s == 1)
        bsp_move(NULL, 4);
    if (is("move_negative") && s == 3)
        bsplib_move_int(buf, -1); /* bsp_move in compatibility mode */
    if ((is("qsize_count_null") || is("qsize_count_null_strict")) && s == 2)
        bsp_qsize(NULL, &bytes);
    if (is("qsize_bytes_null") && s == 0)
        bsp_qsize(&count, NULL);
    if (is("pop_cancels_push")) {
        bsp_push_reg(&y, sizeof y);
        bsp_pop_reg(&y);
    }
    bsp_sync();

    /* superstep 2 */
    if (is("pop_cancels_push") && s == 1)
        bsp_put(2, &x, &y, 0, sizeof y); /* y's push and pop cancelled out */
    if (is("get_tag_tag_null")) {
        int t = 7;
        bsp_send((s + 1) % bsp_nprocs(), &t, NULL, 0); /* with the tag size 4 of this superstep */
        bsp_sync();
        if (s == 2)
            bsp_get_tag(&status, NULL);
    }
    if (wild_message()) { /* a message with a tag of 4 bytes and 8 of payload into memory that is not there */
        int t = 7;
        bsp_send((s + 1) % bsp_nprocs(), &t, buf, sizeof buf);
        bsp_sync();
        void *wild = strstr(which, "low") ? (void *)0x10 : (void *)WILD_PAGE;
        if (s == 2 && strstr(which, "_tag"))
            bsp_get_tag(&status, wild);
        if (s == 2 && strstr(which, "_move"))
            bsp_move(wild, sizeof buf);
        bsp_sync();
    }
    bsp_pop_reg(&x);
    bsp_end();
}

/* A P = 2 section: the caller is pid 0 in main, core 1 runs this. */
static void spmd_put_before_begin(void)
{
    bsp_put(0, &y, &x, 0, sizeof y);
    bsp_begin(2);
    bsp_end();
}


int main(int argc, char **argv)
{
    reserve_wild_page();
    which = argc > 1 ? argv[1] : "";
    if (is("two_sections_no_init")) { /* core 1 of the second runs main again */
        bsp_begin(1);
        bsp_end();
        bsp_begin(2);
        bsp_end();
        return 0;
    }
    if (is("abort_outside"))
        bsp_abort("no section: %d", 7);
    if (is("sync_before_begin"))
        bsp_sync();
    if (is("begin_too_many"))
        bsp_begin(bsp_nprocs() + 1);
    if (is("begin_zero"))
        bsp_begin(0);
    if (is("begin_above_maximum_threads")) {
        mcbsp_set_maximum_threads(3);
        bsp_begin(4);
    }
    if (is("init_null"))
        bsp_init(NULL, argc, argv);
    if (is("pinning_bad")) {
        mcbsp_set_pinning((const size_t *)0x10, 2);
        printf("not reached\n");
    }
    if (is("reserved_cores_bad")) {
        mcbsp_set_reserved_cores((const size_t *)0x20, 3);
        printf("not reached\n");
    }
    if (is("mix_begin_during_ebsp")) {
        ebsp_host_load_noop();
        bsp_begin(4);
    }
    if (is("mix_bsplib_in_ebsp_kernel")) {
        printf("host: ebsp_spmd returned %d\n", ebsp_host_run_kernel_calling_bsplib());
        return 0;
    }
    if (is("put_before_begin")) {
        bsp_init(spmd_put_before_begin, argc, argv);
        bsp_begin(2);
        bsp_push_reg(&x, sizeof x);
        bsp_sync();
        bsp_end();
        return 0;
    }
    bsp_init(spmd, argc, argv);
    spmd();
    if (is("_exit_after_end"))
        _exit(9); /* no section runs: the C library's, as ever */
    printf("main: section done\n");
    if (is("pid_after_end"))
        printf("pid %u\n", (unsigned)bsp_pid());
    return 0;
}
