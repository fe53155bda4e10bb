/*
 * Binding a loaded object's references to functions it does not define
 * (its global offset table slots: lazy PLT slots and GLOB_DAT ones) to
 * other functions, after the dynamic loader bound them. The kernels'
 * per-core C library (kernel_libc.c), the exits a core may not take
 * unseen (faults.c) and a QMP node copy's standard input
 * (faces/qmp/node_stdin.c) use it. x86-64 and i386 only; elsewhere it
 * binds nothing.
 */
#ifndef EBSP_GOT_BIND_H
#define EBSP_GOT_BIND_H

#include <stddef.h>

struct got_binding {
    const char *name; /* the symbol the object's references name */
    void *fn;         /* what they reach from now on */
};

/* Binds the references of the object of dlopen handle h (dlopen(NULL, ..)
 * for the program's executable) named in bindings[0..n) to their fn. A
 * function of that name the object defines itself is left alone. */
void got_bind(void *h, const struct got_binding *bindings, size_t n);

#endif
