// Command cdefs writes capi/engine_defs.h, the C definitions of the
// engine's formats and numbers (engine/cdefs.go): go generate ./engine.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"libebsp/engine"
)

func main() {
	out := flag.String("o", engine.CDefsPath, "the header to write")
	flag.Parse()
	var b bytes.Buffer
	if err := engine.WriteCDefinitions(&b); err != nil {
		fmt.Fprintln(os.Stderr, "cdefs:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "cdefs:", err)
		os.Exit(1)
	}
}
