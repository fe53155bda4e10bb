/*
 * e-lib.h -- minimal stand-in for the Epiphany SDK's kernel-side header,
 * shipped with libebsp.
 *
 * EBSP kernels often include <e-lib.h> for a few SDK names.  This header
 * lets such sources compile with the host gcc under libebsp.  It provides
 * exactly these, none of which needs library support:
 *
 *   e_coreid_t      typedef for a core id (unsigned int)
 *   e_ctimer_id_t   enum with E_CTIMER_0 and E_CTIMER_1
 *   E_TRUE, E_FALSE macros, 1 and 0
 *   E_OK, E_ERR     macros, 0 and -1
 *   e_dma_copy      a blocking DMA copy (the core's DMA engine, as
 *                   ebsp_dma_push followed by ebsp_dma_wait)
 *
 * Nothing else from the Epiphany SDK is available (no e_get_coreid, timers,
 * other e_dma_* calls, e_read/e_write, mutexes, interrupts, SECTION ...).
 * Use the EBSP API in e_bsp.h instead: bsp_pid(), ebsp_raw_time(),
 * ebsp_dma_push(), ebsp_get_direct_address() and so on.
 *
 * The macros are guarded with #ifndef so this header can be used together
 * with e-hal.h.
 */
#ifndef EBSP_E_LIB_H
#define EBSP_E_LIB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Identifier of a core, as the SDK's e_get_coreid() would return it. */
typedef unsigned int e_coreid_t;

/* The two core timers.  libebsp's timing calls do not use either. */
typedef enum {
    E_CTIMER_0 = 0,
    E_CTIMER_1 = 1
} e_ctimer_id_t;

#ifndef E_TRUE
#define E_TRUE 1
#endif
#ifndef E_FALSE
#define E_FALSE 0
#endif
#ifndef E_OK
#define E_OK 0
#endif
#ifndef E_ERR
#define E_ERR (-1)
#endif

/* Copies n bytes from src to dst with the core's DMA engine and waits for
 * the transfer; E_OK. */
int e_dma_copy(void *dst, void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* EBSP_E_LIB_H */
