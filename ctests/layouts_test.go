package ctests

import "os"

// someLayouts picks the layouts case number i runs in. `make test` runs each
// case in one layout, taking them in turn from case to case so that every
// layout still runs some of the cases; EBSP_CTEST_LAYOUTS=all (make
// stress-mpi) runs every case in every layout.
func someLayouts(i int, layouts []mpiLayout) []mpiLayout {
	if os.Getenv("EBSP_CTEST_LAYOUTS") == "all" || len(layouts) < 2 {
		return layouts
	}
	return layouts[i%len(layouts) : i%len(layouts)+1]
}
