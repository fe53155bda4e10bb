//go:build !amd64

package gslot

func offset0() (int64, bool) {
	return 0, false
}
