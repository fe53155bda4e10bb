package engine

import "unsafe"

// The request log: the C shim records bsp_put, bsp_get and bsp_send in a
// per-core log in C memory, since a call into Go costs more than the
// recording, and hands the log over at bsp_sync (or when it is full, or
// before a request it does not log). DrainLog parses it here, so the BSP
// rules stay in the engine: each entry goes through Put, Get or Send, which
// check and pack it exactly as a direct call would.
//
// Layout (defined here, written by capi/reqlog.c): entries back to back, each a logEntry followed by
// its inline bytes (put: the source bytes; send: tag then payload) padded
// to a multiple of 8.

// Kinds of log entries.
const (
	LogPut  = 1
	LogGet  = 2
	LogSend = 3
)

// logEntry is a request's header in the log; the C shim writes it as
// struct reqlog_entry, generated from it (cdefs.go).
type logEntry struct {
	kind     uint32         `c:"kind"`     // LogPut, LogGet, LogSend
	pid      int32          `c:"pid"`      // target (put, send) or source (get) core
	offset   int32          `c:"offset"`   // put, get: offset in the variable; send: tag bytes
	nbytes   int32          `c:"nbytes"`   // put, get: bytes; send: payload bytes
	variable unsafe.Pointer `c:"variable"` // put: destination variable; get: source variable
	dst      unsafe.Pointer `c:"dst"`      // get: where the bytes go
}

// LogEntrySize is the size of an entry header.
const LogEntrySize = int(unsafe.Sizeof(logEntry{}))

// DrainLog feeds the n bytes of request log at log to the engine in issue
// order and returns how many it took. It stops at the first misuse and
// returns it; the entries before it are recorded. A soft error (the
// board's message, printed) only drops its request. At a request that must
// wait for another core's registration it returns that entry's offset and
// NotYet: the caller waits, then drains the log from there. The inline
// bytes are copied, so the caller may reuse the log at once.
func (c *Core) DrainLog(log unsafe.Pointer, n int) (int, *Error) {
	if c.m.stats.on { // the emulator's own work, not the kernel's compute
		defer c.notCompute(threadCPU())
	}
	for off := 0; off < n; {
		if n-off < LogEntrySize {
			return off, c.errorf("bsp_sync", "internal error: request log cut short (%d of %d bytes)", off, n)
		}
		e := (*logEntry)(unsafe.Add(log, off))
		inline, err := c.applyLogEntry(e, unsafe.Add(log, off+LogEntrySize))
		if err != nil && !err.Soft { // a soft error was printed; the request is dropped
			return off, err
		}
		off += LogEntrySize + pad8(inline)
	}
	return n, nil
}

// applyLogEntry records one logged request and returns its inline bytes.
// data, the inline bytes, is only used when there are any: a zero-length
// entry at the end of the log has nothing valid after it.
func (c *Core) applyLogEntry(e *logEntry, data unsafe.Pointer) (int, *Error) {
	pid, offset, nbytes := int(e.pid), int(e.offset), int(e.nbytes)
	switch e.kind {
	case LogPut:
		if nbytes == 0 {
			data = nil
		}
		return nbytes, c.put("bsp_put", pid, data, e.variable, offset, nbytes, false)
	case LogGet:
		return 0, c.get("bsp_get", pid, e.variable, offset, e.dst, nbytes, false)
	case LogSend:
		tagLen := offset
		if tagLen != c.comm.tagsize {
			return 0, c.errorf("bsp_send", "internal error: logged with tag size %d, the tag size is %d", tagLen, c.comm.tagsize)
		}
		tag, payload := data, unsafe.Pointer(nil)
		if tagLen == 0 {
			tag = nil
		}
		if nbytes > 0 {
			payload = unsafe.Add(data, tagLen)
		}
		return tagLen + nbytes, c.send(pid, tag, payload, nbytes, false)
	default:
		return 0, c.errorf("bsp_sync", "internal error: request log entry of unknown kind %d", e.kind)
	}
}

func (c *Core) mirrorTagsize() {
	if c.tagMirror != nil {
		*c.tagMirror = int32(c.comm.tagsize)
	}
}
