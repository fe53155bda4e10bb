/*
 * Go entry points of the BSPlib face (capi/bsplib.go), called by
 * bsplib.c.
 */
#ifndef EBSP_BSPLIB_H
#define EBSP_BSPLIB_H

#include "../../capi/shim.h"

#include <stddef.h>
#include <stdint.h>

/* Starts a section of nprocs cores (the run started, Standard mode); NULL
 * after printing why on stderr. */
extern struct ebsp_core *goBsplibBegin(long long nprocs);
/* Ends the section: prints "ebsp: run stopped: ..." if it was stopped and
 * returns the machine to the EBSP host's state; release: frees the core
 * table too. */
extern void goBsplibFinish(int release);
extern void goBsplibCoreBegin(int pid);
/* 1: the core waits for the others in bsp_end. */
extern int goBsplibCoreEnd(int pid);
/* bsp_nprocs before bsp_begin: the cores of the mesh (EBSP_MESH). */
extern int goBsplibAvailable(void);
/* The machine is made (under mpirun: MPI joined, ebsp_world_rank set); 0
 * after printing why not. */
extern int goBsplibReady(void);
/* Reports "$PP: BSP ERROR: call: what (superstep N)" and stops the run. */
extern void goBsplibMisuse(int pid, char *call, char *what);

/* Set by a face whose cores run a main of their own instead of the
 * program's (faces/qmp: each node its private copy of the program): what
 * the other cores of a section without bsp_init run (bsplib.c). */
extern int (*bl_core_main)(int argc, char **argv);

/* mcbsp_set_maximum_threads' cap on the cores of a section, 0 for none
 * (mcbsp.c). */
size_t mcbsp_thread_cap(void);

/* The program's globals on rank 0 of an MPI job (globals.c): a copy of
 * its writable segments at bsp_init; then the byte ranges main changed
 * since, at most max, as addresses of the program's file (its symbols');
 * then the copy freed. */
void bl_globals_snapshot(void);
int bl_globals_changed(uintptr_t *from, uintptr_t *to, int max);
void bl_globals_free(void);
/* Rank 0's first bsp_begin: warns of globals main set after bsp_init,
 * which the other ranks do not see (capi/bsplib.go). */
extern void goBsplibGlobalsCheck(void);

/* 0 under EBSP_CHECKS=0: the face's own argument checks are off; set by
 * goBsplibBegin for each section (bsplib.c). */
extern int bl_checks;

/* Shared with nested.c (bsplib.c): a misuse on a core (the run stops);
 * a core's bsp_begin; pid 0's leave hook in a stopped section; the
 * library ends the program (no exit report). */
__attribute__((format(printf, 3, 4))) void bl_misuse(struct ebsp_core *self, const char *call, const char *format, ...);
void bl_start_core(struct ebsp_core *self);
void bl_owner_leave(void);
void bl_exiting(void);

/* Nested sections (nested.c): bsp_init on a core of a running section
 * names the SPMD function of a section its next bsp_begin starts
 * (pending: one is named); bsp_begin then starts it with the calling core
 * as pid 0; bl_nest_finish is that pid 0's bsp_end, which returns to the
 * section around it. */
void bl_nest_init(struct ebsp_core *self, void (*spmd)(void));
int bl_nest_pending(void);
void bl_nest_begin(struct ebsp_core *self, long long P, const void *caller);
void bl_nest_finish(struct ebsp_core *self);

/* Go entry points of nested sections (capi/nested.go): starts the run of
 * a section of nprocs cores for sec (NULL and the reason in *why, C
 * memory), and ends it (its stop report, C memory, or NULL). */
extern struct ebsp_core *goBsplibNestBegin(long long nprocs, struct ebsp_section *sec, char **why);
extern char *goBsplibNestFinish(struct ebsp_section *sec);

#endif
