/*
 * Host-side calls that run the cores: ebsp_spmd blocks in C (never inside a
 * Go call, so core threads entering Go are not starved of Go's Ps) while
 * the host thread serves ebsp_host_sync callbacks. Also the host's message
 * calls, which check the pointers they are given before the Go engine
 * reads or writes through them.
 */
#include "../../capi/faces.h"

#include <host_bsp.h>
#include <stdint.h>
#include <stdio.h>

/* Whether the name a program gave call is a string the library can read
 * (Go would read it with a fault it cannot report); if not, says so. */
static int name_readable(const char *call, const char *name)
{
    enum { NAME_MAX_BYTES = 4096 };
    if (!name || user_string_good(name, NAME_MAX_BYTES))
        return 1;
    char line[160];
    snprintf(line, sizeof line, "ebsp: ERROR: %s: cannot read the name at %p: no readable string there\n", call,
             (const void *)name);
    out_stderr(line);
    return 0;
}

int bsp_init(const char *e_name, int argc, char **argv)
{
    if (!name_readable("bsp_init", e_name))
        return 0;
    return goInit((char *)e_name, argc, argv);
}

int ebsp_register_kernel(const char *name, int (*kernel)(void))
{
    if (!name_readable("ebsp_register_kernel", name))
        return 0;
    if (kernel && user_pointer_small((const void *)(uintptr_t)kernel, 1)) {
        char line[160]; /* a number, not a function: every core would crash calling it */
        snprintf(line, sizeof line, "ebsp: ERROR: ebsp_register_kernel: the kernel at %p is not a function\n",
                 (void *)(uintptr_t)kernel);
        out_stderr(line);
        return 0;
    }
    if (kernel && !user_code_good((const void *)(uintptr_t)kernel)) {
        char line[200]; /* data, or nothing: every core would crash jumping there */
        snprintf(line, sizeof line,
                 "ebsp: ERROR: ebsp_register_kernel: the kernel at %p is not a function: there is no code at that address\n",
                 (void *)(uintptr_t)kernel);
        out_stderr(line);
        return 0;
    }
    return goRegisterKernel((char *)name, (void *)(uintptr_t)kernel);
}

void ebsp_set_sync_callback(void (*cb)())
{
    ebsp_sync_cb = cb;
}

void ebsp_set_end_callback(void (*cb)())
{
    ebsp_end_cb = cb;
}

int ebsp_spmd(void)
{
    if (ebsp_self) {
        out_core_line(ebsp_self->pid, "BSP ERROR: ebsp_spmd: called on a core; it is a host call");
        return 0;
    }
    out_flush();
    struct ebsp_core *cores = goSpmdStart();
    if (!cores)
        return 0;
    int ok = cores_run(cores, ebsp_active_nprocs);
    reqlog_free_all(cores, ebsp_active_nprocs);
    direct_free_all(cores, ebsp_active_nprocs);
    hp_free_all(cores, ebsp_active_nprocs);
    goSpmdDone(ok);
    if (ebsp_end_cb) {
        goEndCallback(1);
        faults_host_call(ebsp_end_cb, "the host's end callback");
        goEndCallback(0);
    }
    out_flush();
    return ok;
}

/* Whether the n bytes at p, argument what of host call `call`, can be
 * written (write) or read; if not, that is reported on stderr. */
static int host_memory_ok(const char *call, const char *what, const void *p, size_t n, int write)
{
    return !user_memory_refused(-1, call, what, p, n, write);
}

/* The value of a small pointer that Go gets as NULL, for its report. */
static uintptr_t small_value(const void *p)
{
    return user_pointer_small_value(p);
}

void ebsp_set_tagsize(int *tag_bytes)
{
    if (!tag_bytes || !host_memory_ok("ebsp_set_tagsize", "tag_bytes", tag_bytes, sizeof *tag_bytes, 1))
        return;
    *tag_bytes = goSetHostTagsize(*tag_bytes);
}

void ebsp_send_down(int pid, const void *tag, const void *payload, int nbytes)
{
    if (payload && nbytes > 0 && user_pointer_refused(-1, "ebsp_send_down", "the payload", payload, (size_t)nbytes, 0))
        return;
    /* a small payload pointer with nbytes <= 0 is never read: as NULL */
    goSendDown(pid, user_pointer_for_go(tag), small_value(tag), user_pointer_for_go(payload), nbytes);
}

void ebsp_qsize(int *packets, int *accum_bytes)
{
    if ((packets && !host_memory_ok("ebsp_qsize", "packets", packets, sizeof *packets, 1)) ||
        (accum_bytes && !host_memory_ok("ebsp_qsize", "accum_bytes", accum_bytes, sizeof *accum_bytes, 1)))
        return;
    int n = 0, bytes = 0;
    goHostQSize(&n, &bytes);
    if (packets)
        *packets = n;
    if (accum_bytes)
        *accum_bytes = bytes;
}

void ebsp_get_tag(int *status, void *tag)
{
    if (status && !host_memory_ok("ebsp_get_tag", "status", status, sizeof *status, 1))
        return;
    int st = goHostGetTag(user_pointer_for_go(tag), small_value(tag));
    if (status)
        *status = st;
}

void ebsp_move(void *payload, int buffer_size)
{
    goHostMove(user_pointer_for_go(payload), small_value(payload), buffer_size);
}

int ebsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf)
{
    if ((tag_ptr_buf && !host_memory_ok("ebsp_hpmove", "tag_ptr_buf", tag_ptr_buf, sizeof *tag_ptr_buf, 1)) ||
        (payload_ptr_buf && !host_memory_ok("ebsp_hpmove", "payload_ptr_buf", payload_ptr_buf, sizeof *payload_ptr_buf, 1)))
        return -1;
    void *tag = NULL, *payload = NULL;
    int size = goHostHPMove(&tag, &payload);
    if (size >= 0) {
        if (tag_ptr_buf)
            *tag_ptr_buf = tag;
        if (payload_ptr_buf)
            *payload_ptr_buf = payload;
    }
    return size;
}
