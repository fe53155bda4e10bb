package engine

import "fmt"

// ChecksEnv names the environment variable that picks the check level
// (see CheckLevel).
const ChecksEnv = "EBSP_CHECKS"

// CheckLevel is how strictly the engine holds a program to the rules.
type CheckLevel int

const (
	// CheckBoard (the default) behaves as Epiphany BSP 1.0 did on the
	// board: registrations take effect at once, nbytes of bsp_push_reg is
	// ignored, an unknown variable prints the board's line and the call
	// does nothing. Our own diagnostics only where the board would crash,
	// hang or corrupt memory.
	CheckBoard CheckLevel = iota
	// CheckStrict holds the program to the documented BSP rules:
	// registrations collective and effective at the next sync, one per
	// superstep, sizes enforced; every misuse stops the run with a
	// diagnostic naming the core, the call and the superstep.
	CheckStrict
	// CheckOff is the board's behaviour without the per-request checks
	// (NULL buffers): only what protects the library itself.
	CheckOff
)

func (l CheckLevel) String() string {
	switch l {
	case CheckStrict:
		return "strict"
	case CheckOff:
		return "0"
	}
	return "board"
}

// ParseCheckLevel reads an EBSP_CHECKS value: "" or "board" (also "1"),
// "strict" (also "2"), "0" (also "off").
func ParseCheckLevel(s string) (CheckLevel, error) {
	switch s {
	case "", "board", "1":
		return CheckBoard, nil
	case "strict", "2":
		return CheckStrict, nil
	case "0", "off":
		return CheckOff, nil
	}
	return CheckBoard, fmt.Errorf("%s=%q is not a check level (board, strict or 0); using board", ChecksEnv, s)
}
