/*
 * e-hal.h -- minimal stand-in for the Epiphany SDK's host-side header,
 * shipped with libebsp.
 *
 * EBSP host programs sometimes include <e-hal.h> for a few SDK names.  This
 * header lets such sources compile with the host gcc under libebsp.
 * host_bsp.h includes it, as EBSP's host_bsp.h includes the SDK's.  It
 * provides exactly these, none of which needs library support, besides
 * <stdint.h> and <sys/types.h>:
 *
 *   E_OK, E_ERR     macros, 0 and -1
 *   E_TRUE, E_FALSE macros, 1 and 0
 *   e_platform_t    placeholder struct with the fields rows and cols
 *
 * Nothing else from the Epiphany SDK is available (no e_init, e_open,
 * e_load, e_read/e_write, e_alloc, e_get_platform_info ...).  Use the EBSP
 * API in host_bsp.h instead: bsp_init(), bsp_nprocs(), ebsp_write(),
 * ebsp_read(), bsp_stream_create() and so on.
 *
 * The macros are guarded with #ifndef so this header can be used together
 * with e-lib.h.
 */
#ifndef EBSP_E_HAL_H
#define EBSP_E_HAL_H

/* host_bsp.h needs off_t, which EBSP's host_bsp.h got through the SDK's
 * e-hal.h; <stdint.h> is here too for programs that took the fixed-width
 * integer types from that header. */
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef E_OK
#define E_OK 0
#endif
#ifndef E_ERR
#define E_ERR (-1)
#endif
#ifndef E_TRUE
#define E_TRUE 1
#endif
#ifndef E_FALSE
#define E_FALSE 0
#endif

/*
 * Placeholder for the SDK's platform description, so that declarations
 * using it compile.  No libebsp call fills it in; the number of cores
 * comes from bsp_nprocs().
 */
typedef struct e_platform_t {
    int rows, cols;
} e_platform_t;

#ifdef __cplusplus
}
#endif

#endif /* EBSP_E_HAL_H */
