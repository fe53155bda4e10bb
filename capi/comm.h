/*
 * Go entry points of the communication engine (capi/comm.go), called by
 * the core-side C functions in faces/ebsp/comm_api.c and dual_api.c. Each takes the
 * calling core's pid first; misuse is reported and stops the run inside
 * the call, so the caller then runs sched_leave_if_stopped(). The DRMA
 * calls answer ENGINE_DONE or ENGINE_NOT_YET (core.h).
 */
#ifndef EBSP_COMM_H
#define EBSP_COMM_H

#include <stdint.h>

extern void goPushReg(int pid, void *variable, int nbytes);
extern void goPopReg(int pid, void *variable);
extern int goPut(int pid, int target, void *src, void *dst, int offset, int nbytes);
extern int goHPPut(int pid, int target, void *src, void *dst, int offset, int nbytes);
extern int goGet(int pid, int source, void *src, int offset, void *dst, int nbytes);
extern int goHPGet(int pid, int source, void *src, int offset, void *dst, int nbytes);
extern int goDirectGet(int pid, int source, void *src, int offset, void *dst, int nbytes);
extern int goDirectAddress(int pid, int target, void *variable, void **addr);
extern int goRemoteVariable(int pid, int target, void *variable, void **remote, int *size);
extern int goSetTagsize(int pid, int tagsize);
extern int goHostTagsize(void);
extern void goSend(int pid, int target, void *tag, void *payload, int nbytes);
extern void goSendUp(int pid, void *tag, void *payload, int nbytes);

/* The host's message calls (faces/ebsp/host.c checks their pointers first; a
 * small one is passed as NULL, its value in small_*). */
extern int goSetHostTagsize(int size);
extern void goSendDown(int pid, void *tag, uintptr_t small_tag, void *payload, int nbytes);
extern void goHostQSize(int *packets, int *accum_bytes);
extern int goHostGetTag(void *tag, uintptr_t small_tag);
extern void goHostMove(void *payload, uintptr_t small_payload, int buffer_size);
extern int goHostHPMove(void **tag, void **payload);

#endif
