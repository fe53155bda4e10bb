//go:build !linux

package emesh

// ThreadCPU is 0 where the thread's CPU clock is not read: the predicted
// board time then has no compute part (communication and sync only).
func ThreadCPU() int64 { return 0 }
