package bsplib

import (
	"debug/elf"
	"fmt"
	"strings"
)

// GlobalsWarning is the warning, at rank 0's first bsp_begin of an MPI
// job, that names the program's globals main set after bsp_init
// (globals.c finds the bytes [from, to) of each range that changed): the
// other ranks run the SPMD function from their bsp_init (as BSPonMPI
// does), so their cores see such a global as it was there (0, unless code
// before bsp_init set it). "" when no range lies in a data object of the
// program's file.
func GlobalsWarning(ranges [][2]uint64) string {
	if len(ranges) == 0 {
		return ""
	}
	var names []string
	seen := map[string]bool{}
	syms := programSymbols()
	for _, r := range ranges {
		name := symbolAt(syms, r[0], r[1])
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 8 {
		names = append(names[:8], "...")
	}
	return fmt.Sprintf("ebsp: WARNING: main set %s after bsp_init: under mpirun the cores of the other ranks run the SPMD "+
		"function from their bsp_init (as with BSPonMPI) and see the value from before; send what they need "+
		"inside the SPMD function (bsp_put, bsp_send), or set it before bsp_init\n", strings.Join(names, ", "))
}

// programSymbols are the data objects of the program's file (its symbol
// table, else its dynamic one), nil when it cannot be read.
func programSymbols() []elf.Symbol {
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		return nil
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil || len(syms) == 0 {
		syms, _ = f.DynamicSymbols()
	}
	var objects []elf.Symbol
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_OBJECT && s.Size > 0 {
			objects = append(objects, s)
		}
	}
	return objects
}

// symbolAt names the bytes from..to of the program's file: the data
// object they fall in, "" when none (the dynamic loader's tables, which
// change as functions are first called).
func symbolAt(syms []elf.Symbol, from, to uint64) string {
	for _, s := range syms {
		if from < s.Value+s.Size && to > s.Value {
			return s.Name
		}
	}
	return ""
}
