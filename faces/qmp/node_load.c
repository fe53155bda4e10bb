/*
 * Each node's own copy of the program, so that its globals are its own,
 * as QMP programs (written for one MPI process per node) assume.
 *
 * Node 0 (under mpirun: each rank's first node) is the process's own
 * image. Every other node loads a copy of the executable as a shared
 * object (capi/loader.c's way: a uniquely named copy on tmpfs, dlopen,
 * unlink) and runs its main:
 *   - a position-independent executable loads like a shared object once
 *     the DF_1_PIE flag of its dynamic section is cleared in the copy
 *     (glibc refuses to dlopen an object that has it);
 *   - main is found in the dynamic symbols (`pkg-config --libs qmp` links
 *     with -rdynamic) or else in the file's symbol table;
 *   - the copy's code reaches its own globals PC-relative, so they are
 *     private without RTLD_DEEPBIND, which must not be used: the copy
 *     relocations of an executable (stdout, stderr, environ) would then
 *     bind to the copy's own empty slots instead of libc's objects;
 *   - its thread-local variables are the executable's own (local-exec
 *     offsets from the thread pointer): each core is a thread with its own
 *     block, so they are per node as well;
 *   - its constructors run at the load, on the node's core; atexit
 *     handlers it registers run at the process's exit (copies stay loaded);
 *   - its standard input is empty (node_stdin.c): only node 0 reads the
 *     process's, as under mpirun.
 * A program that is not position-independent cannot be loaded twice: its
 * nodes then share node 0's globals, and the library says so once.
 */
#define _GNU_SOURCE
#include "qmp_face.h"

#define BSPLIB_NO_NAME_MAP
#include <bsp.h>

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*main_fn)(int, char **);

/* Reads n bytes at off of fd; 0 on success. */
static int read_at(int fd, void *to, size_t n, off_t off)
{
    return pread(fd, to, n, off) == (ssize_t)n ? 0 : -1;
}

/* The program header of type `type` in the ELF file fd, 0 if found. */
static int find_phdr(int fd, const ElfW(Ehdr) *eh, uint32_t type, ElfW(Phdr) *out)
{
    for (int i = 0; i < eh->e_phnum; i++) {
        if (read_at(fd, out, sizeof *out, (off_t)(eh->e_phoff + (size_t)i * eh->e_phentsize)))
            return -1;
        if (out->p_type == type)
            return 0;
    }
    return -1;
}

/* Clears DF_1_PIE in the copy fd. 1: it was a PIE (now loadable), 0: a
 * shared object already, -1: not loadable (not ELF of this class, or a
 * fixed-address executable). */
static int unmark_pie(int fd)
{
    ElfW(Ehdr) eh;
    if (read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_type != ET_DYN)
        return -1;
    ElfW(Phdr) dyn;
    if (find_phdr(fd, &eh, PT_DYNAMIC, &dyn))
        return -1;
    for (size_t off = 0; off + sizeof(ElfW(Dyn)) <= dyn.p_filesz; off += sizeof(ElfW(Dyn))) {
        ElfW(Dyn) d;
        if (read_at(fd, &d, sizeof d, (off_t)(dyn.p_offset + off)))
            return -1;
        if (d.d_tag == DT_NULL)
            break;
        if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_PIE)) {
            d.d_un.d_val &= ~(ElfW(Xword))DF_1_PIE;
            return pwrite(fd, &d, sizeof d, (off_t)(dyn.p_offset + off)) == (ssize_t)sizeof d ? 1 : -1;
        }
    }
    return 0;
}

/* main's address in the file's symbol table (.symtab), relative to its load
 * address; 0 if absent (a stripped program without -rdynamic). */
static uintptr_t symtab_main(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    uintptr_t at = 0;
    ElfW(Ehdr) eh;
    if (read_at(fd, &eh, sizeof eh, 0) == 0) {
        for (int i = 0; i < eh.e_shnum && !at; i++) {
            ElfW(Shdr) sh, strs;
            if (read_at(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (size_t)i * eh.e_shentsize)) ||
                sh.sh_type != SHT_SYMTAB ||
                read_at(fd, &strs, sizeof strs, (off_t)(eh.e_shoff + (size_t)sh.sh_link * eh.e_shentsize)))
                continue;
            for (size_t off = 0; off + sizeof(ElfW(Sym)) <= sh.sh_size && !at; off += sizeof(ElfW(Sym))) {
                ElfW(Sym) sym;
                char name[5];
                if (read_at(fd, &sym, sizeof sym, (off_t)(sh.sh_offset + off)) ||
                    ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_name + sizeof name > strs.sh_size ||
                    read_at(fd, name, sizeof name, (off_t)(strs.sh_offset + sym.st_name)))
                    continue;
                if (memcmp(name, "main", sizeof name) == 0)
                    at = (uintptr_t)sym.st_value;
            }
        }
    }
    close(fd);
    return at;
}

/* A copy of the program loaded as a shared object, or NULL with err set
 * (*shared: the program cannot be copied: run node 0's main). */
static void *load_copy(const char *exe, int *shared, char *err, size_t errlen)
{
    static _Atomic unsigned long counter;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s/ebsp-qmp-%ld-%lu", loader_scratch_dir(), (long)getpid(),
             atomic_fetch_add(&counter, 1));
    int fd = open(copy, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", copy, strerror(errno));
        return NULL;
    }
    int marked = loader_copy_file(exe, fd) == 0 ? unmark_pie(fd) : -2;
    close(fd);
    void *h = NULL;
    if (marked == -2)
        snprintf(err, errlen, "cannot copy %s: %s", exe, strerror(errno));
    else if (marked < 0)
        *shared = 1;
    else if (!(h = dlopen(copy, RTLD_NOW | RTLD_LOCAL)))
        snprintf(err, errlen, "%s", dlerror());
    unlink(copy);
    return h;
}

/* The copy's main, or NULL. */
static main_fn main_of(void *h, const char *exe)
{
    main_fn fn = NULL;
    void *sym = dlsym(h, "main");
    if (!sym) {
        struct link_map *lm = NULL;
        uintptr_t at = symtab_main(exe);
        if (at && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm)
            sym = (void *)(lm->l_addr + at);
    }
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

/* Node 0's main: the process's own (nodes sharing its globals). */
static main_fn own_main(void)
{
    main_fn fn = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "main");
    uintptr_t at;
    if (!sym && (at = symtab_main("/proc/self/exe"))) {
        struct link_map *lm = NULL;
        void *self = dlopen(NULL, RTLD_NOW);
        if (self && dlinfo(self, RTLD_DI_LINKMAP, &lm) == 0 && lm)
            sym = (void *)(lm->l_addr + at);
    }
    memcpy(&fn, &sym, sizeof fn);
    return fn;
}

int qmp_node_main(int argc, char **argv)
{
    static _Atomic int warned;
    char exe[4096], err[8400] = "";
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        fprintf(stderr, "ebsp: ERROR: QMP: cannot find the program (/proc/self/exe): %s\n", strerror(errno));
        bsplib_abort("QMP: node %d cannot load its copy of the program\n", ebsp_self->pid);
        return 1;
    }
    exe[len] = '\0';
    int shared = 0;
    void *h = load_copy(exe, &shared, err, sizeof err);
    main_fn fn = h ? main_of(h, exe) : NULL;
    if (shared) {
        if (!atomic_exchange(&warned, 1))
            fprintf(stderr, "ebsp: WARNING: QMP: %s is not a position-independent executable: its nodes share "
                    "one copy of its globals (build with -fPIE -pie, gcc's default)\n", exe);
        fn = own_main();
    } else if (h && !fn) {
        snprintf(err, sizeof err, "main is neither in its dynamic symbols nor in its symbol table "
                 "(link with -rdynamic, as `pkg-config --libs qmp` does)");
    }
    if (!fn) {
        fprintf(stderr, "ebsp: ERROR: QMP: node %d cannot load its copy of %s: %s\n", ebsp_self->pid, exe, err);
        bsplib_abort("QMP: node %d cannot load its copy of the program\n", ebsp_self->pid);
        return 1;
    }
    if (h) {
        qmp_node_quiet_stdin(h);
        ebsp_self->kernel_base = object_base((const void *)fn); /* the watchdog unwinds a node looping there */
    }
    return fn(argc, argv);
}
