/*
 * Fixed local addresses. On the board a kernel reaches its own local
 * memory at the addresses 0x0000-0x7fff: `char *c = (char *)0x6000;` (the
 * EBSP docs' own example), or the data the host put at 0x5000 with
 * ebsp_write. Here a core's local memory is a host buffer, and those
 * addresses are not mapped: such an access faults. The fault handler
 * (capi/faults.c) hands it here, and the access goes to the core's buffer:
 * the faulting instruction runs once more, re-encoded so that its memory
 * operand names a copy of the bytes it addresses (x86insn.c), with the
 * registers, flags and vector state of the fault (lowmem_amd64.S); the
 * bytes it changed go back to the local memory, and the core goes on after
 * the instruction. A few microseconds per access: correct, not fast
 * (ebsp_local_address gives a pointer at full speed).
 *
 * Not emulated (the crash is reported as before): addresses below
 * LOWEST_ADDRESS (the board kept its code there; a NULL dereference stays a
 * crash), instructions that use the stack or jump through memory, gathers,
 * the FXSAVE family, string instructions other than MOVS and STOS, and
 * faults in the library's own code. Only x86-64.
 */
#define _GNU_SOURCE
#include "lowmem.h"
#include "x86insn.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#if defined(__x86_64__)

/* The bytes copied around an access: the largest operand (a ZMM register). */
enum { WINDOW = 64 };

struct lowmem_regs {
    uint64_t gpr[16]; /* rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
    uint64_t rflags;
    void *fpstate;      /* the signal frame's FXSAVE or XSAVE area */
    uint64_t xfeatures; /* the XSAVE features in it, 0 for FXSAVE */
    uint64_t host_rsp;
};

void lowmem_exec(struct lowmem_regs *r);
void lowmem_back(void);
extern void *lowmem_code;

/* One page, executable: the instruction and its jump back, then the window. */
static unsigned char *page;
static atomic_flag busy = ATOMIC_FLAG_INIT;
enum { CODE_AT = 0, WINDOW_AT = 128 };

static const int greg_of[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

/* The arithmetic flags and DF: what an instruction may change. */
#define FLAGS_WRITABLE 0xcd5ull

/* The address the instruction's memory operand names. */
static uintptr_t effective_address(const struct x86_insn *in, const ucontext_t *uc)
{
    uint64_t a = (uint64_t)in->disp;
    if (in->base >= 0 && in->base < 16)
        a += (uint64_t)uc->uc_mcontext.gregs[greg_of[in->base]];
    if (in->index >= 0 && in->index < 16)
        a += (uint64_t)uc->uc_mcontext.gregs[greg_of[in->index]] * (uint64_t)in->scale;
    return in->prefix_67 ? (uint32_t)a : (uintptr_t)a;
}

/* Opcodes whose ModRM reg field names a general register (the legacy
 * maps): with it RSP, the trampoline's stack would be read or written. */
static int reg_is_gpr(const struct x86_insn *in)
{
    int op = in->opcode;
    if (in->encoding != X86_LEGACY)
        return 0;
    if (in->map == X86_MAP_ONE)
        return (op < 0x40 && (op & 7) < 4) || op == 0x63 || op == 0x69 || op == 0x6b || (op >= 0x84 && op <= 0x8b);
    if (in->map == X86_MAP_0F)
        return (op >= 0x40 && op <= 0x4f) || op == 0xaf || op == 0xb0 || op == 0xb1 || op == 0xb6 || op == 0xb7 ||
               op == 0xbe || op == 0xbf || op == 0xc0 || op == 0xc1 || op == 0xa3 || op == 0xab || op == 0xb3 ||
               op == 0xbb || op == 0xa4 || op == 0xa5 || op == 0xac || op == 0xad || op == 0xbc || op == 0xbd ||
               op == 0xb8;
    return 0;
}

/* Instructions that cannot run on a copy of their operand: they use the
 * stack, jump, address more than WINDOW bytes or through a vector index. */
static int refused(const struct x86_insn *in)
{
    int op = in->opcode, digit = in->reg;
    if (in->segment == 0x64 || in->segment == 0x65)
        return 1;
    if (reg_is_gpr(in) && digit == 4 && (in->rex & 4) == 0)
        return 1;
    if (in->encoding == X86_LEGACY && in->map == X86_MAP_ONE)
        return op == 0x8f || (op == 0xff && digit >= 2 && digit <= 6);
    if (in->map == X86_MAP_0F)
        return op == 0xae || op == 0x01 || op == 0x00 || (op == 0xc7 && digit != 1) || op == 0x0d || op == 0x18;
    if (in->map == X86_MAP_0F38)
        return (op >= 0x90 && op <= 0x93) || (op >= 0xa0 && op <= 0xa3) || op == 0xc6 || op == 0xc7 || op == 0xf8;
    return 0;
}

/* A core's local memory: the host buffer that its fixed local addresses
 * 0..size-1 lead to. */
struct local {
    unsigned char *base;
    size_t size;
};

/* The core's local memory at [a, a + n), or NULL. */
static unsigned char *local_at(const struct local *mem, uintptr_t a, size_t n)
{
    if (a < LOWEST_ADDRESS || a >= mem->size || n > mem->size - a)
        return NULL;
    return mem->base + a;
}

/* A host address of the string instruction's operand: local memory for a
 * fixed local address, else the address itself; NULL when the operand
 * runs past the local memory's end. */
static unsigned char *string_operand(const struct local *mem, uintptr_t a, size_t n)
{
    unsigned char *p = local_at(mem, a, n);
    return p ? p : a < mem->size ? NULL : (unsigned char *)a;
}

/* MOVS and STOS (REP or not, DF clear): what memcpy and memset of the C
 * library do with larger blocks. */
static int string_op(const struct local *mem, const struct x86_insn *in, ucontext_t *uc)
{
    greg_t *g = uc->uc_mcontext.gregs;
    int op = in->opcode;
    if (in->encoding != X86_LEGACY || in->map != X86_MAP_ONE || (op != 0xa4 && op != 0xa5 && op != 0xaa && op != 0xab) ||
        (g[REG_EFL] & 0x400) || in->segment || in->prefix_67)
        return 0;
    size_t width = op == 0xa4 || op == 0xaa ? 1 : in->rex_w ? 8 : in->prefix_66 ? 2 : 4;
    size_t count = in->rep ? (size_t)g[REG_RCX] : 1;
    if (count > ((size_t)1 << 40) / width)
        return 0;
    size_t n = count * width;
    int moves = op == 0xa4 || op == 0xa5;
    unsigned char *dst = string_operand(mem, (uintptr_t)g[REG_RDI], n);
    const unsigned char *src = moves ? string_operand(mem, (uintptr_t)g[REG_RSI], n) : NULL;
    if (!dst || (moves && !src))
        return 0;
    if (moves)
        memmove(dst, src, n);
    else
        for (size_t i = 0; i < n; i += width)
            memcpy(dst + i, &g[REG_RAX], width);
    g[REG_RDI] += (greg_t)n;
    if (moves)
        g[REG_RSI] += (greg_t)n;
    if (in->rep)
        g[REG_RCX] = 0;
    g[REG_RIP] += in->len;
    return 1;
}

/* The signal frame's vector state as lowmem_exec loads it. */
static void vector_state(const ucontext_t *uc, struct lowmem_regs *r)
{
    unsigned char *fx = (unsigned char *)uc->uc_mcontext.fpregs;
    uint32_t magic;
    memcpy(&magic, fx + 464, sizeof magic); /* struct _fpx_sw_bytes, in FXSAVE's unused bytes */
    r->fpstate = fx;
    r->xfeatures = 0;
    if (magic == 0x46505853u) /* FP_XSTATE_MAGIC1: an XSAVE area */
        memcpy(&r->xfeatures, fx + 472, sizeof r->xfeatures);
}

static int make_page(void)
{
    if (page)
        return 1;
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 0;
    page = p;
    return 1;
}

/* Runs the instruction in on a copy of the window at local. */
static int run_on_copy(const unsigned char *pc, const struct x86_insn *in, ucontext_t *uc, unsigned char *local,
                       size_t n, uintptr_t ea)
{
    unsigned char *window = page + WINDOW_AT + (ea & (WINDOW - 1)); /* the same alignment */
    int len = x86_rewrite_rip(pc, in, page + CODE_AT, (uintptr_t)(page + CODE_AT), (uintptr_t)window);
    if (len < 0)
        return 0;
    unsigned char *jump = page + CODE_AT + len; /* jmp *0(%rip), then the address */
    static const unsigned char jmp_rip[6] = {0xff, 0x25, 0, 0, 0, 0};
    void (*back)(void) = lowmem_back;
    memcpy(jump, jmp_rip, sizeof jmp_rip);
    memcpy(jump + sizeof jmp_rip, &back, sizeof back);
    unsigned char before[WINDOW];
    memset(window, 0, WINDOW);
    memcpy(window, local, n);
    memcpy(before, window, WINDOW);
    struct lowmem_regs r;
    greg_t *g = uc->uc_mcontext.gregs;
    for (int i = 0; i < 16; i++)
        r.gpr[i] = (uint64_t)g[greg_of[i]];
    r.rflags = (uint64_t)g[REG_EFL];
    vector_state(uc, &r);
    lowmem_code = page + CODE_AT;
    lowmem_exec(&r);
    for (int i = 0; i < 16; i++)
        if (i != 4)
            g[greg_of[i]] = (greg_t)r.gpr[i];
    g[REG_EFL] = (greg_t)(((uint64_t)g[REG_EFL] & ~FLAGS_WRITABLE) | (r.rflags & FLAGS_WRITABLE));
    for (size_t i = 0; i < n; i++) /* only what it wrote: another core may write the rest meanwhile */
        if (window[i] != before[i])
            local[i] = window[i];
    g[REG_RIP] += in->len;
    return 1;
}

int lowmem_emulate(unsigned char *local_base, size_t local_size, const void *siginfo, void *uctx)
{
    const struct local mem = {local_base, local_size};
    const siginfo_t *info = siginfo;
    ucontext_t *uc = uctx;
    uintptr_t fault = (uintptr_t)info->si_addr;
    if (!mem.base || info->si_signo != SIGSEGV || info->si_code <= 0 || fault < LOWEST_ADDRESS || fault >= mem.size)
        return 0; /* si_code <= 0: sent by a process, not a fault */
    const unsigned char *pc = (const unsigned char *)uc->uc_mcontext.gregs[REG_RIP];
    if (fault - (uintptr_t)pc < 16)
        return 0; /* fetching the instruction faulted: a jump to a local address, where no code is */
    struct x86_insn in;
    if (x86_decode(pc, 15, &in) != 0)
        return 0;
    if (!in.memory)
        return string_op(&mem, &in, uc);
    if (refused(&in) || in.base == X86_REG_RIP)
        return 0;
    uintptr_t ea = effective_address(&in, uc);
    if (fault < ea || fault - ea >= WINDOW || ea < LOWEST_ADDRESS || ea >= mem.size)
        return 0;
    size_t n = mem.size - ea < WINDOW ? mem.size - ea : WINDOW;
    while (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire))
        ; /* another core's access: a few microseconds */
    int done = make_page() && run_on_copy(pc, &in, uc, mem.base + ea, n, ea);
    atomic_flag_clear_explicit(&busy, memory_order_release);
    return done;
}

#else

int lowmem_emulate(unsigned char *local_base, size_t local_size, const void *siginfo, void *uctx)
{
    (void)local_base;
    (void)local_size;
    (void)siginfo;
    (void)uctx;
    return 0;
}

#endif
