//go:build !(linux && amd64)

package emesh

// lowMapFlag is 0 where addresses are 32-bit anyway (or MAP_32BIT does not
// exist): see lowmap_linux_amd64.go.
const lowMapFlag = 0
