package runtime

import "fmt"

// Lines a core's library calls print as the board's library printed them:
// through ebsp_message, so the host shows "$PP: text". The C ABI sends them
// to stdout; tests collect them.

// SetCoreOutput sets where the lines cores print go; nil drops them. Set
// it before the first run.
func (m *Machine) SetCoreOutput(out func(pid int, text string)) { m.coreOut = out }

// say prints a line exactly as the board's library printed it.
func (c *Core) say(format string, args ...any) {
	if out := c.m.coreOut; out != nil {
		out(c.pid, fmt.Sprintf(format, args...))
	}
}

// diag prints one of libebsp's own diagnostics, "BSP ERROR: call: what
// (superstep N)", for a misuse the board would have crashed on, hung on or
// corrupted memory with. The call goes on, as on the board, returning its
// failure value.
func (c *Core) diag(call, format string, args ...any) {
	c.say("%s", c.errorf(call, format, args...).Error())
}

// strictChecks tells whether libebsp also reports what the board let pass
// silently (EBSP_CHECKS=strict). Not wired to the environment yet: the
// default is the board's behaviour.
func strictChecks() bool { return false }
