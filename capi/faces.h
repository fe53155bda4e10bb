/*
 * The boundary capi gives the faces (faces/ebsp, faces/bsplib, faces/lqcd,
 * faces/qmp): the one header of capi/ a face includes
 * (gotests/layers_test.go). What a face gets through it:
 * - the emulated core as the faces see it (struct ebsp_core, ebsp_self;
 *   its part that is capi's alone stays behind core.own), the checks of
 *   the pointers a program hands over, the registration wait, output and
 *   the world's messages between processes (core.h);
 * - the C path that carries a face's requests in the engine's format: the
 *   one dispatcher per call and the direct requests (direct.h), the
 *   request log (reqlog.h), the registration cache (hp_*, core.h);
 * - capi's Go entry points a face's C calls (comm.h, mem.h, core.h).
 * A face asks capi for nothing else, and capi names no face's internals;
 * capi's own interface, shim.h, no face reaches (gotests/layers_test.go).
 */
#ifndef EBSP_FACES_H
#define EBSP_FACES_H

#include "core.h"
#include "comm.h"
#include "direct.h"
#include "mem.h"
#include "reqlog.h"

#endif
