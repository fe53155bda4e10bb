/*
 * Faults: a kernel that dereferences a bad pointer still kills the process
 * (cores are threads of it), but first the library says which core crashed,
 * in which superstep, and the faulting address. Also the watchdog's way to
 * stop a core that computes forever: a signal that unwinds the core only
 * when it is interrupted inside its own kernel code. And the check of
 * memory a program hands over (user_memory_good), whose faults the
 * handler catches; and a crash of the host inside a callback, or in
 * memory bsp_end released, reported like a core's. And the ends of a
 * thread or of the process that a core may take without a word:
 * pthread_exit (a thread-exit key), _exit, _Exit and quick_exit (their
 * slots in the program and its kernels bound here).
 */
#define _GNU_SOURCE
#include "shim.h"
#include "got_bind.h"

#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

/* The faults, then the signals that end the process which a core may
 * raise itself (on_self_signal). */
static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2};

static int is_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}
enum { N_FAULT_SIGNALS = sizeof fault_signals / sizeof fault_signals[0] };
static struct sigaction previous[N_FAULT_SIGNALS];
static __thread void *alt_stack;
enum { ALT_STACK_SIZE = 64 * 1024 };

/* Set while user_memory_good touches memory a program handed over: a
 * fault there jumps back to it instead of ending the process. */
static __thread sigjmp_buf *probe_jmp;

/* What the host thread runs for the library (faults_host_call), for the
 * report of a crash there; NULL outside. */
static __thread const char *host_activity;

/* Installs the crash reporter (once): a fault on a core thread prints the
 * core, its superstep and the address before the process dies. */
static void faults_install(void);

/* The memories the last bsp_end unmapped, [lo, hi) each: the external
 * memory and the cores' local memories. */
static _Atomic uintptr_t released[2][2];
static const char *const released_what[2] = {
    "the external memory that bsp_end released (stream areas and ebsp_ext_malloc blocks are valid until bsp_end)",
    "the cores' local memory that bsp_end released",
};

static int interrupt_signal(void)
{
    return SIGRTMIN + 5;
}

static const void *pc_of(void *uctx)
{
    ucontext_t *uc = uctx;
#if defined(__x86_64__)
    return (const void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
    return (const void *)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
    return (const void *)uc->uc_mcontext.pc;
#elif defined(__arm__)
    return (const void *)uc->uc_mcontext.arm_pc;
#else
    (void)uc;
    return NULL;
#endif
}

/* Makes the interrupted code go on at pc. */
static void set_pc(void *uctx, const void *pc)
{
    ucontext_t *uc = uctx;
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
#elif defined(__i386__)
    uc->uc_mcontext.gregs[REG_EIP] = (greg_t)pc;
#else
    (void)uc;
    (void)pc;
#endif
}

static const void *sp_of(void *uctx)
{
    ucontext_t *uc = uctx;
#if defined(__x86_64__)
    return (const void *)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__i386__)
    return (const void *)uc->uc_mcontext.gregs[REG_ESP];
#elif defined(__aarch64__)
    return (const void *)uc->uc_mcontext.sp;
#elif defined(__arm__)
    return (const void *)uc->uc_mcontext.arm_sp;
#else
    (void)uc;
    return NULL;
#endif
}

const void *object_base(const void *addr)
{
    Dl_info info;
    if (!addr || !dladdr(addr, &info))
        return NULL;
    return info.dli_fbase;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    }
    return "signal";
}

static int slot_of(int sig)
{
    for (int i = 0; i < N_FAULT_SIGNALS; i++)
        if (fault_signals[i] == sig)
            return i;
    return -1;
}

static void chain(int sig, siginfo_t *info, void *uctx)
{
    struct sigaction *old = &previous[slot_of(sig)];
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction) {
            old->sa_sigaction(sig, info, uctx);
            return;
        }
    } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL); /* the fault repeats on return and kills the process */
}

/* Keeps the cores' and the host's earlier output: stdout is lost when
 * the process dies. */
static void flush_stdout(void)
{
    if (ftrylockfile(stdout) == 0) {
        fflush_unlocked(stdout);
        funlockfile(stdout);
    }
}

/* The report of a crash on a thread that is no core, when the library can
 * say what crashed: a callback it called, or a use of memory bsp_end
 * released. 0 when it cannot (the program's own crash). */
static int host_crash_line(char *line, size_t size, int sig, const siginfo_t *info)
{
    uintptr_t a = (uintptr_t)info->si_addr;
    const char *where = NULL;
    for (int i = 0; i < 2 && !where; i++)
        if (a >= atomic_load(&released[i][0]) && a < atomic_load(&released[i][1]))
            where = released_what[i];
    const char *what = host_activity;
    if (!what && !where)
        return 0;
    return snprintf(line, size, "ebsp: %s crashed: %s at address %p%s%s\n", what ? what : "the host",
                    signal_name(sig), info->si_addr, where ? ", in " : "", where ? where : "");
}

/* The library's load address, for telling its own faults (faults_install). */
static const void *library_base;

static void (*core_crash_hook)(int status);

void faults_on_core_crash(void (*hook)(int status))
{
    core_crash_hook = hook;
}

/* How a crashed core's process ends once its hook is done or its time is
 * up: by the signal, or (0) with the status. */
static int crash_signal, crash_status;

static void die_of_crash(int alarm_sig)
{
    (void)alarm_sig;
    if (!crash_signal)
        _exit(crash_status);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, crash_signal);
    signal(crash_signal, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL); /* blocked in the fault handler this interrupts */
    raise(crash_signal);
}

/* CRASH_HOOK_SECONDS bound the hook (the MPI world's end waits for the
 * other ranks, which may compute on): then the process ends all the same. */
enum { CRASH_HOOK_SECONDS = 5 };

/* Runs the hook before the process ends by signal sig, or with status
 * when sig is 0 (the status of a death by sig: 128 + sig). */
static void run_core_crash_hook(int sig, int status)
{
    void (*hook)(int) = core_crash_hook;
    if (!hook)
        return;
    crash_signal = sig;
    crash_status = sig ? 128 + sig : status;
    signal(SIGALRM, die_of_crash);
    alarm(CRASH_HOOK_SECONDS);
    hook(crash_status);
    alarm(0);
}

/* A signal that ends the process, raised by a core itself: abort() or a
 * failed assert (SIGABRT), raise(SIGTERM), kill(getpid(), SIGUSR1), ...
 * The line names the core; the default action then ends the process, with
 * the status the signal gives (134 for abort). Any other (another
 * process's kill, a thread that is no core, the Go runtime's SIGABRT)
 * goes on as before. */
static void on_self_signal(struct ebsp_core *self, int sig, siginfo_t *info, void *uctx)
{
    /* raised inside the library: the Go runtime ending the process after
       its own report (it raises SIGABRT itself, not through abort) */
    const void *pc = pc_of(uctx);
    int in_library = pc && object_base(pc) == library_base;
    if (!self || in_library || info->si_code > 0 || info->si_pid != getpid()) {
        chain(sig, info, uctx);
        struct sigaction now;
        if (sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL)
            raise(sig); /* blocked in here: the default action once the handler returns */
        return;
    }
    char line[240];
    int step = (int)atomic_load((_Atomic int32_t *)&self->superstep), n;
    if (sig == SIGABRT)
        n = snprintf(line, sizeof line,
                     "ebsp: core %02d called abort() in superstep %d (SIGABRT), which ends the host program "
                     "(cores are threads of it; bsp_abort stops a run)\n",
                     self->pid, step);
    else
        n = snprintf(line, sizeof line,
                     "ebsp: core %02d raised %s in superstep %d, which ends the host program "
                     "(cores are threads of it; bsp_abort stops a run)\n",
                     self->pid, signal_name(sig), step);
    flush_stdout();
    if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
        _exit(128 + sig);
    run_core_crash_hook(sig, 0);
    signal(sig, SIG_DFL);
    raise(sig); /* blocked in here: the default action once the handler returns */
}

/* Whether a faulting address lies within STACK_REACH bytes of the stack
 * pointer: unmapped memory there is the guard below the stack, which a
 * deep recursion or a large local array ran into. */
enum { STACK_REACH = 64 * 1024 };

static int near_stack_pointer(const void *addr, void *uctx)
{
    uintptr_t a = (uintptr_t)addr, sp = (uintptr_t)sp_of(uctx);
    return sp && a + STACK_REACH > sp && a < sp + STACK_REACH;
}

struct code_query {
    uintptr_t addr;
    int found;
};

static int code_segment_holds(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct code_query *q = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && q->addr - start < ph->p_memsz)
            q->found = 1;
    }
    return q->found;
}

/* Whether code is an address in the executable code of the object loaded
 * at base (not its data: a pointer to a global on the stack is no frame):
 * dladdr names the object, its program headers the code. */
static int in_code_of(const void *base, const void *code)
{
    if (!base || object_base(code) != base)
        return 0;
    struct code_query q = {(uintptr_t)code, 0};
    dl_iterate_phdr(code_segment_holds, &q);
    return q.found;
}

/* The call of the library a crashed core was in, or NULL: the innermost
 * return address on its stack that lies inside a function the library
 * exports (its exports are the API, capi/libebsp.map), between the fault
 * and the program's own innermost frame (a fault in the program's code,
 * run by bsp_init on a rank of mpirun, is in no call). The stack is read
 * with process_vm_readv, which stops at unmapped memory instead of
 * faulting. The library is built without sibling calls (the Makefile's
 * -fno-optimize-sibling-calls), so that an exported function that ends in
 * a call to another keeps its frame; the hot calls that do not
 * (SIBLING_CALLS, direct.h) copy the program's memory with copy_user,
 * which does not crash. */
static const char *exported_function_at(const char *code)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (code && dladdr1(code, &info, (void **)&sym, RTLD_DL_SYMENT) && info.dli_fbase == library_base && sym &&
        info.dli_sname && (sym->st_info & 0xf) == STT_FUNC &&
        (uintptr_t)(code - (const char *)info.dli_saddr) < sym->st_size)
        return info.dli_sname;
    return NULL;
}

static const char *api_call_on_stack(const struct ebsp_core *self, void *uctx)
{
    const void *own_code = self->kernel_base; /* the core's program: its frames are not the library's */
    if (in_code_of(own_code, pc_of(uctx)))
        return NULL; /* the fault is in the program's code, whatever call of the library runs it (bsp_init) */
    const char *call = exported_function_at(pc_of(uctx));
    uintptr_t words[1024];
    struct iovec here = {words, sizeof words}, there = {(void *)sp_of(uctx), sizeof words};
    ssize_t got = call || !there.iov_base ? 0 : process_vm_readv(getpid(), &here, 1, &there, 1, 0);
    for (ssize_t i = 0; !call && i < got / (ssize_t)sizeof *words; i++) {
        const char *ret = (const char *)words[i] - 1; /* inside the call instruction */
        if (!words[i])
            continue;
        if (in_code_of(own_code, ret))
            break; /* a frame of the program: the call the fault came from began inside it */
        call = exported_function_at(ret);
    }
    return call;
}

/* The call as the program wrote it: the BSPlib face's functions are
 * bsp.h's calls under other names (bsplib_put, bsplib_put_int: bsp_put),
 * whichever frame of the face's path the fault found. */
static const char *call_as_written(const char *call, char *buf, size_t size)
{
    const char *prefix = "bsplib_";
    size_t n = strlen(prefix);
    if (!call || strncmp(call, prefix, n) != 0)
        return call;
    size_t len = strlen(call + n);
    if (len > 4 && strcmp(call + n + len - 4, "_int") == 0)
        len -= 4;
    snprintf(buf, size, "bsp_%.*s", (int)len, call + n);
    return buf;
}

/* copy_user's table (usermoves.h), laid out by the linker. */
extern const struct copy_fixup __start_ebsp_copy_fixups[] __attribute__((weak, visibility("hidden")));
extern const struct copy_fixup __stop_ebsp_copy_fixups[] __attribute__((weak, visibility("hidden")));

/* A fault at one of copy_user's moves: the copy goes on at its failure
 * exit (1); 0 for any other pc. */
static int copy_user_resume(void *uctx)
{
    const char *pc = pc_of(uctx);
    for (const struct copy_fixup *e = __start_ebsp_copy_fixups; pc && e < __stop_ebsp_copy_fixups; e++)
        if ((const char *)&e->insn + e->insn == pc) {
            set_pc(uctx, (const char *)&e->resume + e->resume);
            return 1;
        }
    return 0;
}

static void on_fault(int sig, siginfo_t *info, void *uctx)
{
    if ((sig == SIGSEGV || sig == SIGBUS) && copy_user_resume(uctx))
        return;
    if (probe_jmp && (sig == SIGSEGV || sig == SIGBUS) && info->si_code > 0)
        siglongjmp(*probe_jmp, 1);
    struct ebsp_core *self = ebsp_self;
    if (!is_fault(sig)) {
        on_self_signal(self, sig, info, uctx);
        return;
    }
    const void *pc = pc_of(uctx);
    const void *own = library_base; /* set before on_fault is installed */
    int in_library = pc && object_base(pc) == own;
    if (self && !in_library && lowmem_emulate(self->local_base, self->local_size, info, uctx))
        return; /* a fixed local address: the access went to the core's local memory */
    char line[320];
    int n;
    /* an instruction fetch: the core called or jumped to an address that
       holds no code (a bad function pointer) */
    int fetch = pc && pc == info->si_addr && (sig == SIGSEGV || sig == SIGBUS);
    int overflow = !fetch && sig == SIGSEGV && near_stack_pointer(info->si_addr, uctx);
    char written[64];
    const char *call = call_as_written(self && !fetch ? api_call_on_stack(self, uctx) : NULL, written, sizeof written);
    if (self)
        n = snprintf(line, sizeof line, "ebsp: core %02d crashed in superstep %d: %s at address %p%s%s%s%s%s\n",
                     self->pid, (int)atomic_load((_Atomic int32_t *)&self->superstep), signal_name(sig),
                     info->si_addr, in_library ? " (inside libebsp)" : "",
                     fetch ? ": it called or jumped to that address, where there is no code" : "",
                     overflow ? ": its stack overflowed (EBSP_STACK_KB sets a core's stack)" : "",
                     call ? ", in its call of " : "", call ? call : "");
    else
        n = host_crash_line(line, sizeof line, sig, info);
    if (n > 0) {
        flush_stdout();
        if (write(STDERR_FILENO, line, (size_t)n) < 0)
            _exit(128 + sig);
    }
    if (in_library || !self) {
        chain(sig, info, uctx); /* Go's own handler deals with faults in Go code */
        return;
    }
    run_core_crash_hook(sig, 0);
    signal(sig, SIG_DFL);
}

void faults_host_call(void (*fn)(void), const char *what)
{
    const char *outer = host_activity;
    host_activity = what;
    atomic_signal_fence(memory_order_seq_cst);
    fn();
    atomic_signal_fence(memory_order_seq_cst);
    host_activity = outer;
}

void faults_released(const void *ext, size_t ext_bytes, const void *local, size_t local_bytes)
{
    faults_install();
    const void *base[2] = {ext, local};
    size_t bytes[2] = {ext_bytes, local_bytes};
    for (int i = 0; i < 2; i++) {
        atomic_store(&released[i][0], (uintptr_t)base[i]);
        atomic_store(&released[i][1], (uintptr_t)base[i] + bytes[i]);
    }
}

static void on_interrupt(int sig, siginfo_t *info, void *uctx)
{
    (void)sig;
    (void)info;
    struct ebsp_core *self = ebsp_self;
    if (!self || !(self->sched.can_unwind || self->sched.leave) || !sched_stopped())
        return;
    if (object_base(pc_of(uctx)) != self->kernel_base)
        return;
    if (self->sched.leave)
        self->sched.leave();
    longjmp(self->sched.exit_jmp, 1);
}

static _Atomic int installed;

/* Marks a thread that runs cores between its begin and end hooks, and
 * the thread-local storage a coroutine core runs with (its own): its
 * destructor runs when such a thread ends while its core runs, by
 * pthread_exit in the core's code, which would leave the others waiting
 * for ever. */
static pthread_key_t core_thread_key;
static int have_core_thread_key;

/* The mark of a thread that adopted a core (sched_adopt: the program's
 * main thread as BSPlib's pid 0, or a rank's first core under mpirun):
 * its pthread_exit is reported while its core runs, and is its own
 * business before and after. */
static char adopter_mark;

static void on_core_thread_exit(void *marker)
{
    struct ebsp_core *self = ebsp_self;
    if (self && self->sched.where != WHERE_RUNNING)
        return; /* a coroutine's storage, its core done */
    if (!self && marker == &adopter_mark && !host_activity)
        return;
    char line[240];
    int n;
    if (!self && host_activity) /* the host thread, in a callback the library runs (faults_host_call) */
        n = snprintf(line, sizeof line,
                     "ebsp: %s called pthread_exit, which ends the thread that runs the host: the run cannot go on "
                     "(bsp_abort stops a run)\n",
                     host_activity);
    else if (self)
        n = snprintf(line, sizeof line,
                     "ebsp: core %02d called pthread_exit in superstep %d, which ends the thread it runs on: "
                     "the run cannot go on (cores are threads of the host program; bsp_abort stops a run)\n",
                     self->pid, (int)atomic_load((_Atomic int32_t *)&self->superstep));
    else
        n = snprintf(line, sizeof line, "ebsp: a thread that runs cores called pthread_exit: the run cannot go on\n");
    flush_stdout();
    if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
        _exit(1);
    run_core_crash_hook(0, 1);
    _exit(1);
}

/* _exit, _Exit and quick_exit end the process at once, without the exit
 * handlers that name a core's exit (kernel_libc.c's exit, the BSPlib
 * face's on_exit) or end an MPI job: a core's call of one, through the
 * references of the program's executable or of a kernel (their slots are
 * bound here: faults_bind_exits), is named first and ends the job as a
 * crash does. Called anywhere else, they are the C library's. stdout is
 * not flushed: the program asked for an end without it. */
static void name_core_exit(const char *call, int status)
{
    struct ebsp_core *self = ebsp_self;
    if (!self || self->sched.where != WHERE_RUNNING)
        return;
    char line[240];
    int n = snprintf(line, sizeof line,
                     "ebsp: ERROR: core %02d called %s(%d) in superstep %d, which ends the host program at once "
                     "(cores are threads of it; bsp_abort stops a run)\n",
                     self->pid, call, status, (int)atomic_load((_Atomic int32_t *)&self->superstep));
    if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
        _exit(status);
    run_core_crash_hook(0, status);
}

static void core_underscore_exit(int status)
{
    name_core_exit("_exit", status);
    _exit(status);
}

static void core_Exit(int status)
{
    name_core_exit("_Exit", status);
    _Exit(status);
}

static void core_quick_exit(int status)
{
    name_core_exit("quick_exit", status);
    quick_exit(status);
}

static const struct got_binding core_exits[] = {
    {"_exit", (void *)core_underscore_exit}, {"_Exit", (void *)core_Exit}, {"quick_exit", (void *)core_quick_exit}};

void faults_bind_exits(void *h)
{
    got_bind(h, core_exits, sizeof core_exits / sizeof core_exits[0]);
}

/* The program's executable: its cores' code (BSPlib, LQCD) calls through
 * its slots. */
static void bind_program_exits(void)
{
    void *program = dlopen(NULL, RTLD_NOW | RTLD_NOLOAD);
    faults_bind_exits(program);
    if (program)
        dlclose(program);
}

static void faults_install(void)
{
    if (atomic_load_explicit(&installed, memory_order_acquire) || atomic_exchange(&installed, 1))
        return;
    library_base = object_base((const void *)faults_install);
    bind_program_exits();
    have_core_thread_key = pthread_key_create(&core_thread_key, on_core_thread_exit) == 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_FAULT_SIGNALS; i++) {
        int sig = fault_signals[i];
        /* a signal from elsewhere restarts the program's system calls, as
           before; one the program ignores (nohup's SIGHUP) stays ignored */
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | (is_fault(sig) ? 0 : SA_RESTART);
        sigaction(sig, &sa, &previous[i]);
        if (!is_fault(sig) && !(previous[i].sa_flags & SA_SIGINFO) && previous[i].sa_handler == SIG_IGN)
            sigaction(sig, &previous[i], NULL);
    }
    sa.sa_sigaction = on_interrupt;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigaction(interrupt_signal(), &sa, NULL);
}

/* Before a run's first core runs, on the thread that adopts a core or
 * starts the cores: that thread is marked for its pthread_exit (on the
 * cores' own threads, faults_thread_start's mark comes first). */
static void faults_prepare(void)
{
    faults_install();
    if (have_core_thread_key && !pthread_getspecific(core_thread_key))
        pthread_setspecific(core_thread_key, &adopter_mark);
}

/* Per thread that runs cores: an alternate signal stack, so stack
 * overflows are reported. */
static void faults_thread_start(void)
{
    if (have_core_thread_key)
        pthread_setspecific(core_thread_key, &core_thread_key);
    alt_stack = malloc(ALT_STACK_SIZE);
    if (!alt_stack)
        return;
    stack_t ss = {.ss_sp = alt_stack, .ss_size = ALT_STACK_SIZE, .ss_flags = 0};
    sigaltstack(&ss, NULL);
}

static void faults_thread_end(void)
{
    if (have_core_thread_key)
        pthread_setspecific(core_thread_key, NULL);
    if (!alt_stack)
        return;
    stack_t ss = {.ss_flags = SS_DISABLE};
    sigaltstack(&ss, NULL);
    free(alt_stack);
    alt_stack = NULL;
}

/* Asks a core that computes without calling the library to leave its
 * kernel (watchdog); it leaves only when interrupted in its own kernel code. */
static void faults_interrupt(struct sched_core *core)
{
    pthread_kill(core->thread, interrupt_signal());
}

static void faults_allow_interrupt(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, interrupt_signal());
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

/* Where a kernel file's core runs its code, for fault reports and the
 * interrupt's test (unless whoever made the core knew better: faces/bsplib/bsplib.c). */
static void faults_core_begin(struct sched_core *s)
{
    struct ebsp_core *core = core_of(s);
    if (s->can_unwind && !core->kernel_base)
        core->kernel_base = object_base((const void *)s->entry);
    if (have_core_thread_key)
        pthread_setspecific(core_thread_key, &core_thread_key);
}

static const struct sched_hooks faults_hooks = {
    .prepare = faults_prepare,
    .core_begin = faults_core_begin,
    .thread_begin = faults_thread_start,
    .thread_end = faults_thread_end,
    .interrupt = faults_interrupt,
    .allow_interrupt = faults_allow_interrupt,
    .host_call = faults_host_call,
};

__attribute__((constructor)) static void faults_register(void)
{
    sched_add_hooks(&faults_hooks);
}

void *ebsp_small_page;

void *ebsp_small_variables(void)
{
    if (!ebsp_small_page) {
        void *p = mmap(NULL, LOWEST_ADDRESS, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ebsp_small_page = p == MAP_FAILED ? NULL : p;
    }
    return ebsp_small_page;
}

/* Touches the byte at a as a read, or as a write that leaves it as it is
 * (an atomic add of 0, so that a concurrent store by another thread is
 * not undone). Not instrumented by AddressSanitizer: a probe is meant to
 * touch memory that may lie outside every object it knows (the pages of
 * a range the program named), and only the kernel's answer counts. */
#if defined(__SANITIZE_ADDRESS__)
#define PROBE_UNINSTRUMENTED __attribute__((no_sanitize_address))
#else
#define PROBE_UNINSTRUMENTED
#endif
PROBE_UNINSTRUMENTED static inline void touch(uintptr_t a, int write)
{
    if (write)
        __atomic_fetch_add((volatile unsigned char *)a, 0, __ATOMIC_RELAXED);
    else
        (void)*(volatile const unsigned char *)a;
}

/* Touches one byte in every page of the n bytes at p, and their last byte
 * (a page is at least 4 KiB); *done follows the offset of the byte
 * touched. */
PROBE_UNINSTRUMENTED static void touch_pages(uintptr_t start, size_t n, int write, volatile size_t *done)
{
    uintptr_t last = start + (n - 1);
    if (last < start)
        last = UINTPTR_MAX; /* the range wraps: the top of the address space is never the program's */
    for (uintptr_t a = start;;) {
        *done = a - start;
        touch(a, write);
        if (a >= (last & ~(uintptr_t)4095))
            break;
        a = (a | 4095) + 1;
    }
    *done = last - start;
    touch(last, write);
}

/* After the handler jumped back to a probe: the probe is over, and the
 * handler's signal, still blocked, is unblocked. */
static void probe_caught(void)
{
    probe_jmp = NULL;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGSEGV);
    sigaddset(&set, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

#if defined(__x86_64__) || defined(__i386__)
/* Touches a byte in every page of the n bytes at p with copy_user's moves
 * (write: reads it and writes it back, as the copy will overwrite it); 0
 * when one faulted. */
static int pages_listed_good(unsigned char *p, size_t n, int write)
{
    unsigned char scratch;
    uintptr_t start = (uintptr_t)p, last = start + (n - 1);
    if (last < start)
        return 0; /* wraps: the top of the address space is never the program's */
    for (uintptr_t a = start;; a = (a | 4095) + 1) {
        unsigned char *at = (unsigned char *)a;
        if (!copy_user_byte(write ? at : &scratch, at))
            return 0;
        if (a >= (last & ~(uintptr_t)4095))
            break;
    }
    return copy_user_byte(write ? p + (n - 1) : &scratch, p + (n - 1));
}

int copy_user_large(void *dst, const void *src, size_t n)
{
    if (!pages_listed_good((unsigned char *)(uintptr_t)src, n, 0) || !pages_listed_good(dst, n, 1))
        return 0;
    memcpy(dst, src, n);
    return 1;
}
#else
int copy_user_large(void *dst, const void *src, size_t n)
{
    if (user_memory_good(src, n, 0) < n || user_memory_good(dst, n, 1) < n)
        return 0;
    memcpy(dst, src, n);
    return 1;
}
#endif

size_t user_memory_good(const void *p, size_t n, int write)
{
    if (n == 0 || (uintptr_t)p < LOWEST_ADDRESS)
        return 0;
    faults_install();
    sigjmp_buf jmp;
    volatile size_t done = 0;
    if (sigsetjmp(jmp, 0)) {
        probe_caught();
        return done;
    }
    probe_jmp = &jmp;
    atomic_signal_fence(memory_order_seq_cst); /* set before the first touch */
    touch_pages((uintptr_t)p, n, write, &done);
    atomic_signal_fence(memory_order_seq_cst);
    probe_jmp = NULL;
    return n;
}

int user_string_good(const char *s, size_t max)
{
    if ((uintptr_t)s < LOWEST_ADDRESS)
        return 0;
    faults_install();
    sigjmp_buf jmp;
    if (sigsetjmp(jmp, 0)) {
        probe_caught();
        return 0;
    }
    probe_jmp = &jmp;
    atomic_signal_fence(memory_order_seq_cst);
    size_t n = strnlen(s, max);
    atomic_signal_fence(memory_order_seq_cst);
    probe_jmp = NULL;
    return n < max;
}

int user_code_good(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (a < LOWEST_ADDRESS)
        return 0;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps)
        return 1; /* cannot tell: the run reports a jump to no code */
    char line[512];
    int good = 0;
    while (!good && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && a >= lo && a < hi)
            good = perms[2] == 'x';
        size_t len = strlen(line);
        while (len && line[len - 1] != '\n' && fgets(line, sizeof line, maps)) /* a long path: the rest of its line */
            len = strlen(line);
    }
    fclose(maps);
    return good;
}
