/*
 * Hands mpi.c the Go side's pack and unpack (world.go's exports) as
 * function pointers: the round calls them through those, so that mpi.c and
 * world.go do not call each other in a circle (gotests/filegraph_test.go).
 */
#include "mpi.h"
#include "_cgo_export.h"

void mpiw_use_go_packers(void)
{
    mpiw_packers(goMPIPack, goMPIUnpack);
}
