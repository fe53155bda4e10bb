/* For make test-shim: the two enums that MulticoreBSP's mcbsp-affinity.h
 * declares, under that header's include guard, as a program built against
 * MulticoreBSP's headers and bsp.h sees them. */
#ifndef _H_MCBSP_AFFINITY
#define _H_MCBSP_AFFINITY
enum mcbsp_affinity_mode { SCATTER = 0, COMPACT, MANUAL };
enum mcbsp_thread_numbering { CONSECUTIVE = 0, WRAPPED };
void mcbsp_set_affinity_mode(const enum mcbsp_affinity_mode mode);
#endif
