#include <e_bsp.h>
#include <lqcd_msg.h>

#define SAY(expr)                                                                                  \
    do {                                                                                           \
        int r = (expr);                                                                            \
        ebsp_message("%s = %d; error %d: %s", #expr, r, getErrorNumber(), getErrorString());     \
        clearError();                                                                              \
    } while (0)

int main(void)
{
    bsp_begin();
    initMachine();
    int xy[1] = {0}, dims[1] = {1};
    SAY(getGridCoordinates(NULL));
    SAY(getGridCoordinates(xy));
    SAY(getGridHost(NULL));
    SAY(getGridHost(xy));
    declareTopology(dims, 1, 0);
    SAY(getGridCoordinates(NULL));
    SAY(getGridHost(NULL));
    SAY(getGridCoordinates(xy));
    SAY(getGridHost(xy));
    shutdownMachine();
    bsp_end();
    return 0;
}
