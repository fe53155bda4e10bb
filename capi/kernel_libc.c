/*
 * The C library as a kernel instance sees it. On the board each core
 * linked its own newlib, so rand() and strtok() kept their state per core,
 * and rand() was newlib's generator. Here every instance calls the host's
 * one C library, whose hidden state all cores would share (one random
 * sequence for all cores together, glibc's numbers). So after loading an
 * instance, the loader points the instance's references to rand, srand
 * and strtok (its GOT entries) at the versions below, which keep their
 * state in the calling core; and exit at one that says which core ended
 * the program.
 */
#define _GNU_SOURCE
#include "shim.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* rand: newlib's generator, Knuth's 64-bit linear congruence (The Art of
 * Computer Programming vol. 2, 3rd ed., p. 106), its high word returned;
 * the state starts at 1 and srand sets it. */
static uint64_t host_rand_next = 1;
static char *host_strtok_last;

static uint64_t *rand_state(void)
{
    struct ebsp_core *self = ebsp_self;
    return self ? &self->own->rand_next : &host_rand_next;
}

static int core_rand(void)
{
    uint64_t *next = rand_state();
    *next = *next * 6364136223846793005ull + 1;
    return (int)((*next >> 32) & 0x7fffffff);
}

static void core_srand(unsigned seed)
{
    *rand_state() = seed;
}

static char *core_strtok(char *s, const char *delim)
{
    struct ebsp_core *self = ebsp_self;
    return strtok_r(s, delim, self ? &self->own->strtok_last : &host_strtok_last);
}

/* exit: on the board newlib's exit halted the calling core and the host
 * waited for its bsp_end for ever; here it ends the host's process, which
 * would vanish without a word, so the core and its superstep are named. */
static void core_exit(int status)
{
    struct ebsp_core *self = ebsp_self;
    if (self) {
        char line[256];
        snprintf(line, sizeof line,
                 "ebsp: ERROR: core %02d called exit(%d) in superstep %d, which ends the host program "
                 "(on the board the core stopped there and the host waited for it for ever)\n",
                 self->pid, status, (int)atomic_load((_Atomic int32_t *)&self->superstep));
        out_stderr(line);
    }
    exit(status);
}

static const struct {
    const char *name;
    void *fn;
} hooks[] = {{"rand", (void *)core_rand}, {"srand", (void *)core_srand}, {"strtok", (void *)core_strtok},
             {"exit", (void *)core_exit}};

#if defined(__x86_64__)
#define HOOK_JUMP_SLOT R_X86_64_JUMP_SLOT
#define HOOK_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__i386__)
#define HOOK_JUMP_SLOT R_386_JMP_SLOT
#define HOOK_GLOB_DAT R_386_GLOB_DAT
#endif

#if __WORDSIZE == 64
#define HOOK_R_SYM ELF64_R_SYM
#define HOOK_R_TYPE ELF64_R_TYPE
#else
#define HOOK_R_SYM ELF32_R_SYM
#define HOOK_R_TYPE ELF32_R_TYPE
#endif

struct object {
    ElfW(Addr) base;
    const ElfW(Sym) *symtab;
    const char *strtab;
    uintptr_t relro_lo, relro_hi; /* pages read-only after relocation */
};

/* A d_ptr of the dynamic section: glibc has made most absolute already. */
static uintptr_t absolute(const struct object *o, ElfW(Addr) p)
{
    return p < o->base ? o->base + p : p;
}

static int find_relro(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct object *o = arg;
    if (info->dlpi_addr != o->base)
        return 0;
    /* the pages the dynamic loader made read-only: whole pages only, so
       the end rounds down, as glibc's _dl_protect_relro does */
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            uintptr_t start = o->base + info->dlpi_phdr[i].p_vaddr;
            o->relro_lo = start & ~(page - 1);
            o->relro_hi = (start + info->dlpi_phdr[i].p_memsz) & ~(page - 1);
        }
    return 1;
}

static void write_slot(const struct object *o, uintptr_t slot, void *fn)
{
    long page = sysconf(_SC_PAGESIZE);
    int relro = slot >= o->relro_lo && slot < o->relro_hi;
    void *start = (void *)(slot & ~(uintptr_t)(page - 1));
    if (relro && mprotect(start, (size_t)page, PROT_READ | PROT_WRITE) != 0)
        return;
    memcpy((void *)slot, &fn, sizeof fn);
    if (relro)
        mprotect(start, (size_t)page, PROT_READ);
}

/* Points the relocations of one table (entries of stride bytes, each
 * starting with r_offset and r_info) at the hooks. */
static void hook_table(const struct object *o, uintptr_t table, size_t bytes, size_t stride)
{
    for (size_t at = 0; table && stride && at + stride <= bytes; at += stride) {
        const ElfW(Rel) *r = (const ElfW(Rel) *)(table + at); /* a Rela begins the same */
        unsigned type = (unsigned)HOOK_R_TYPE(r->r_info);
        if (type != HOOK_JUMP_SLOT && type != HOOK_GLOB_DAT)
            continue;
        const ElfW(Sym) *sym = &o->symtab[HOOK_R_SYM(r->r_info)];
        if (sym->st_shndx != SHN_UNDEF)
            continue; /* the kernel's own function of that name */
        const char *name = o->strtab + sym->st_name;
        for (size_t h = 0; h < sizeof hooks / sizeof hooks[0]; h++)
            if (strcmp(name, hooks[h].name) == 0)
                write_slot(o, o->base + r->r_offset, hooks[h].fn);
    }
}

void kernel_libc_hook(void *instance)
{
#ifdef HOOK_JUMP_SLOT
    struct link_map *map;
    if (dlinfo(instance, RTLD_DI_LINKMAP, &map) != 0)
        return;
    struct object o = {.base = map->l_addr};
    uintptr_t jmprel = 0, rela = 0, rel = 0;
    size_t pltrelsz = 0, relasz = 0, relsz = 0;
    long pltrel = 0;
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: o.symtab = (const ElfW(Sym) *)absolute(&o, d->d_un.d_ptr); break;
        case DT_STRTAB: o.strtab = (const char *)absolute(&o, d->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = absolute(&o, d->d_un.d_ptr); break;
        case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
        case DT_PLTREL: pltrel = (long)d->d_un.d_val; break;
        case DT_RELA: rela = absolute(&o, d->d_un.d_ptr); break;
        case DT_RELASZ: relasz = d->d_un.d_val; break;
        case DT_REL: rel = absolute(&o, d->d_un.d_ptr); break;
        case DT_RELSZ: relsz = d->d_un.d_val; break;
        }
    }
    if (!o.symtab || !o.strtab)
        return;
    dl_iterate_phdr(find_relro, &o);
    hook_table(&o, jmprel, pltrelsz, pltrel == DT_RELA ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel)));
    hook_table(&o, rela, relasz, sizeof(ElfW(Rela)));
    hook_table(&o, rel, relsz, sizeof(ElfW(Rel)));
#else
    (void)instance;
#endif
}
