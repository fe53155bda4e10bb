package engine

import "fmt"

// Lines a core's stream calls print, as the board's library printed them:
// through ebsp_message, so the host shows "$PP: text" (Probes.Print).

// say prints a line exactly as the board's library printed it.
func (c *Core) say(format string, args ...any) {
	c.m.print(c.pid, fmt.Sprintf(format, args...))
}

// diag prints one of libebsp's own diagnostics, "BSP ERROR: call: what
// (superstep N)", for a misuse the board would have crashed on, hung on or
// corrupted memory with. The call goes on, as on the board, returning its
// failure value.
func (c *Core) diag(call, format string, args ...any) {
	c.m.print(c.pid, c.errorf(call, format, args...).Error())
}

// strictChecks tells whether libebsp also reports what the board let pass
// silently (EBSP_CHECKS=strict).
func (c *Core) strictChecks() bool { return c.m.Checks() == CheckStrict }

// strictErrorf is errorf under strict checks and nil otherwise: a misuse
// the board let pass without a word.
func (c *Core) strictErrorf(call, format string, args ...any) *Error {
	if !c.strictChecks() {
		return nil
	}
	return c.errorf(call, format, args...)
}
