package ctests

import "os"

// someLayouts picks the layouts (or other settings) case number i runs in.
// `make test` runs each case in one, taking them in turn from case to case
// so that every one still runs some of the cases; EBSP_CTEST_LAYOUTS=all
// (make stress-mpi) runs every case in every one.
func someLayouts[T any](i int, all []T) []T {
	if os.Getenv("EBSP_CTEST_LAYOUTS") == "all" || len(all) < 2 {
		return all
	}
	return all[i%len(all) : i%len(all)+1]
}
