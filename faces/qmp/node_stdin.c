/*
 * Standard input of the nodes other than 0 (node_load.c's copies of the
 * program): nothing to read, as under mpirun, where only rank 0 has the
 * job's standard input. A copy reads the process's standard input two
 * ways, and both are turned to one stream on /dev/null:
 *   - through its own `stdin` (fgets(line, n, stdin)): the executable's
 *     copy relocation of libc's variable, a slot of the copy's own;
 *   - through the libc calls that read libc's stdin themselves (scanf,
 *     vscanf, getchar): their slots in the copy's global offset table are
 *     bound to readers of that stream instead (x86-64 only; elsewhere they
 *     still read the process's standard input).
 */
#define _GNU_SOURCE
#include "qmp_face.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static FILE *nothing; /* /dev/null, for reading; NULL if it cannot be opened */
static pthread_once_t nothing_once = PTHREAD_ONCE_INIT;

static void open_nothing(void)
{
    nothing = fopen("/dev/null", "r");
}

#if defined(__x86_64__)
static int quiet_vscanf(const char *format, va_list ap)
{
    return vfscanf(nothing, format, ap);
}

static int quiet_scanf(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int r = vfscanf(nothing, format, ap);
    va_end(ap);
    return r;
}

static int quiet_getchar(void)
{
    return fgetc(nothing);
}

/* The calls that read libc's stdin, by the names a program's references
 * to them have (C99 and C23 scanf are other symbols). */
static const struct {
    const char *name;
    void *reader;
} readers[] = {
    {"scanf", (void *)quiet_scanf},          {"__isoc99_scanf", (void *)quiet_scanf},
    {"__isoc23_scanf", (void *)quiet_scanf}, {"vscanf", (void *)quiet_vscanf},
    {"__isoc99_vscanf", (void *)quiet_vscanf}, {"__isoc23_vscanf", (void *)quiet_vscanf},
    {"getchar", (void *)quiet_getchar},      {"getchar_unlocked", (void *)quiet_getchar},
};

/* The read-only-after-relocation range of a loaded object. */
struct relro {
    uintptr_t base;
    const char *name;
    uintptr_t lo, hi;
};

static int find_relro(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct relro *r = arg;
    if (info->dlpi_addr != r->base || !info->dlpi_name || strcmp(info->dlpi_name, r->name) != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            r->lo = r->base + info->dlpi_phdr[i].p_vaddr;
            r->hi = r->lo + info->dlpi_phdr[i].p_memsz;
        }
    return 1;
}

/* Writes fn into the slot, which lies in the read-only range r or in
 * writable memory. */
static void write_slot(void **slot, void *fn, const struct relro *r)
{
    uintptr_t at = (uintptr_t)slot;
    if (at < r->lo || at >= r->hi) {
        *slot = fn;
        return;
    }
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = at & ~(page - 1);
    if (mprotect((void *)lo, page, PROT_READ | PROT_WRITE) != 0)
        return;
    *slot = fn;
    mprotect((void *)lo, page, PROT_READ);
}

/* An address of the loaded object: glibc relocates these in place here. */
static uintptr_t dyn_address(const struct link_map *lm, uintptr_t p)
{
    return p < lm->l_addr ? p + lm->l_addr : p;
}

/* Binds the copy's references to the readers' names to the quiet ones. */
static void rebind_readers(struct link_map *lm)
{
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *rel[2] = {NULL, NULL};
    size_t relsz[2] = {0, 0};
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB)
            symtab = (const ElfW(Sym) *)dyn_address(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            strtab = (const char *)dyn_address(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_JMPREL)
            rel[0] = (const ElfW(Rela) *)dyn_address(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_PLTRELSZ)
            relsz[0] = d->d_un.d_val;
        else if (d->d_tag == DT_RELA)
            rel[1] = (const ElfW(Rela) *)dyn_address(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_RELASZ)
            relsz[1] = d->d_un.d_val;
    }
    if (!symtab || !strtab)
        return;
    struct relro r = {.base = lm->l_addr, .name = lm->l_name};
    dl_iterate_phdr(find_relro, &r);
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; rel[k] && i < relsz[k] / sizeof *rel[k]; i++) {
            const ElfW(Rela) *x = &rel[k][i];
            unsigned type = (unsigned)ELF64_R_TYPE(x->r_info);
            if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
                continue;
            const char *name = strtab + symtab[ELF64_R_SYM(x->r_info)].st_name;
            for (size_t j = 0; j < sizeof readers / sizeof readers[0]; j++)
                if (strcmp(name, readers[j].name) == 0)
                    write_slot((void **)(lm->l_addr + x->r_offset), readers[j].reader, &r);
        }
    }
}
#endif

void qmp_node_quiet_stdin(void *h)
{
    pthread_once(&nothing_once, open_nothing);
    if (!nothing)
        return;
    FILE **in = dlsym(h, "stdin");
    if (in && in != &stdin)
        *in = nothing;
#if defined(__x86_64__)
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
        rebind_readers(lm);
#endif
}
