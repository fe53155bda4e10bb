/*
 * got_bind (got_bind.h): walks the object's relocation tables (its
 * dynamic section names them) and rewrites the slots of the named
 * symbols; a slot in the read-only-after-relocation range is made
 * writable for the write.
 */
#define _GNU_SOURCE
#include "got_bind.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GOT_JUMP_SLOT R_X86_64_JUMP_SLOT
#define GOT_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__i386__)
#define GOT_JUMP_SLOT R_386_JMP_SLOT
#define GOT_GLOB_DAT R_386_GLOB_DAT
#endif

#if __WORDSIZE == 64
#define GOT_R_SYM ELF64_R_SYM
#define GOT_R_TYPE ELF64_R_TYPE
#else
#define GOT_R_SYM ELF32_R_SYM
#define GOT_R_TYPE ELF32_R_TYPE
#endif

#ifdef GOT_JUMP_SLOT
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

/* Binds the relocations of one table (entries of stride bytes, each
 * starting with r_offset and r_info). */
static void bind_table(const struct object *o, uintptr_t table, size_t bytes, size_t stride,
                       const struct got_binding *bindings, size_t n)
{
    for (size_t at = 0; table && stride && at + stride <= bytes; at += stride) {
        const ElfW(Rel) *r = (const ElfW(Rel) *)(table + at); /* a Rela begins the same */
        unsigned type = (unsigned)GOT_R_TYPE(r->r_info);
        if (type != GOT_JUMP_SLOT && type != GOT_GLOB_DAT)
            continue;
        const ElfW(Sym) *sym = &o->symtab[GOT_R_SYM(r->r_info)];
        if (sym->st_shndx != SHN_UNDEF)
            continue; /* the object's own function of that name */
        const char *name = o->strtab + sym->st_name;
        for (size_t i = 0; i < n; i++)
            if (strcmp(name, bindings[i].name) == 0)
                write_slot(o, o->base + r->r_offset, bindings[i].fn);
    }
}

void got_bind(void *h, const struct got_binding *bindings, size_t n)
{
    struct link_map *map;
    if (!h || dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map)
        return;
    struct object o = {.base = map->l_addr};
    uintptr_t jmprel = 0, rela = 0, rel = 0;
    size_t pltrelsz = 0, relasz = 0, relsz = 0;
    long pltrel = 0;
    for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
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
    bind_table(&o, jmprel, pltrelsz, pltrel == DT_RELA ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel)), bindings, n);
    bind_table(&o, rela, relasz, sizeof(ElfW(Rela)), bindings, n);
    bind_table(&o, rel, relsz, sizeof(ElfW(Rel)), bindings, n);
}
#else
void got_bind(void *h, const struct got_binding *bindings, size_t n)
{
    (void)h;
    (void)bindings;
    (void)n;
}
#endif
