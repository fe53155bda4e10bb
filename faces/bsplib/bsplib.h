/*
 * Go entry points of the BSPlib face (capi/bsplib.go), called by
 * bsplib.c.
 */
#ifndef EBSP_BSPLIB_H
#define EBSP_BSPLIB_H

#include "../../capi/faces.h"

#include <stdarg.h>
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

/* What the cores of every section share (cores.c): bl_exiting is set
 * when the library ends the program (its exit report is then not
 * printed); bl_vformat formats into malloc'ed memory (NULL without);
 * bl_misuse reports a misuse on a core, which stops the run, and the core
 * leaves (returns only for a registered EBSP kernel); bl_start_core is a
 * core's bsp_begin (its clock starts, the engine counts it in);
 * bl_owner_leave is pid 0's way out of a stopped section (it counts as
 * finished and waits for the monitor to end the program). */
extern _Atomic int bl_exiting;
char *bl_vformat(const char *format, va_list ap);
__attribute__((format(printf, 3, 4))) void bl_misuse(struct ebsp_core *self, const char *call, const char *format, ...);
void bl_start_core(struct ebsp_core *self);
void bl_owner_leave(void);

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
