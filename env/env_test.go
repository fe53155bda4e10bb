package env

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"libebsp/emesh"
	"libebsp/runtime"
)

// fake is an environment of its own.
type fake map[string]string

func (f fake) get(name string) string { return f[name] }

func TestDefaults(t *testing.T) {
	none := fake{}.get
	mesh, err := MeshOf(none)
	require.NoError(t, err)
	assert.Equal(t, emesh.DefaultMesh, mesh)
	mem, err := MemoryOf(none)
	require.NoError(t, err)
	assert.Equal(t, emesh.DefaultMemoryConfig, mem)
	level, limit, err := CommOf(none)
	require.NoError(t, err)
	assert.Equal(t, runtime.CheckBoard, level)
	assert.Equal(t, 0, limit, "0: the engine's default")
	assert.Equal(t, 0.0, TimeoutOf(none))
	want := 2 << 20
	if unsafe.Sizeof(uintptr(0)) == 4 {
		want = 256 << 10
	}
	assert.Equal(t, want, StackBytesOf(none))
	assert.Empty(t, StatsOf(none)+TraceOf(none)+KernelPathOf(none))
	rest, err := RestOf(none)
	require.NoError(t, err)
	assert.Equal(t, RestAuto, rest)
}

func TestRest(t *testing.T) {
	for v, want := range map[string]int{"auto": RestAuto, " 0 ": RestNever, "1": RestAlways} {
		rest, err := RestOf(fake{Rest: v}.get)
		require.NoError(t, err, v)
		assert.Equal(t, want, rest, v)
	}
	rest, err := RestOf(fake{Rest: "often"}.get)
	assert.ErrorContains(t, err, Rest)
	assert.Equal(t, RestAuto, rest)
}

func TestValues(t *testing.T) {
	get := fake{
		Mesh: "8x8", LocalMem: "64K", ExtMem: "1M", DMASync: "1", Checks: "strict", CommLimit: " 12 ",
		Timeout: "2.5", StackKB: "512", Stats: "s.json", Trace: "t.json", KernelPath: "/a:/b",
	}.get
	mesh, err := MeshOf(get)
	require.NoError(t, err)
	assert.Equal(t, emesh.Mesh{Rows: 8, Cols: 8}, mesh)
	mem, err := MemoryOf(get)
	require.NoError(t, err)
	assert.Equal(t, emesh.MemoryConfig{LocalSize: 64 << 10, ExtSize: 1 << 20, DMASync: true, DMA: emesh.BoardDMA}, mem)
	level, limit, err := CommOf(get)
	require.NoError(t, err)
	assert.Equal(t, runtime.CheckStrict, level)
	assert.Equal(t, 12, limit)
	assert.Equal(t, 2.5, TimeoutOf(get))
	assert.Equal(t, 512<<10, StackBytesOf(get))
	assert.Equal(t, "s.json", StatsOf(get))
	assert.Equal(t, "t.json", TraceOf(get))
	assert.Equal(t, "/a:/b", KernelPathOf(get))
}

func TestBadValues(t *testing.T) {
	_, err := MeshOf(fake{Mesh: "8y8"}.get)
	assert.Error(t, err)
	_, err = MemoryOf(fake{LocalMem: "lots"}.get)
	assert.ErrorContains(t, err, LocalMem)
	level, _, err := CommOf(fake{Checks: "sometimes"}.get)
	assert.ErrorContains(t, err, Checks)
	assert.Equal(t, runtime.CheckBoard, level)
	assert.Equal(t, 0.0, TimeoutOf(fake{Timeout: "soon"}.get))
	assert.Equal(t, 0.0, TimeoutOf(fake{Timeout: "-3"}.get))
	def := StackBytesOf(fake{}.get)
	for _, kb := range []string{"64", "big", "-1", "99999999999"} {
		assert.Equal(t, def, StackBytesOf(fake{StackKB: kb}.get), kb)
	}
}

// README.md's table of variables is the user's list of Vars, in order.
func TestREADMEListsEveryVariable(t *testing.T) {
	text, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	s := string(text)
	start := strings.Index(s, "## Environment variables")
	require.GreaterOrEqual(t, start, 0, "README.md has no Environment variables section")
	s = s[start:]
	if end := strings.Index(s[3:], "\n## "); end >= 0 {
		s = s[:end+3]
	}
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(EBSP_[A-Z0-9_]+)` \\|").FindAllStringSubmatch(s, -1) {
		listed = append(listed, m[1])
	}
	assert.Equal(t, Vars, listed)
}

// No other code of the library reads the environment, and every EBSP_*
// name it mentions is one of Vars (so a new variable cannot be read, or
// named in a message, without being listed). Header guards (EBSP_*_H)
// are names, not variables.
func TestOnlyHereReadsTheEnvironment(t *testing.T) {
	known := map[string]bool{}
	for _, v := range Vars {
		known[v] = true
	}
	token := regexp.MustCompile(`\bEBSP_[A-Z0-9_]*[A-Z0-9]\b`)
	reads := regexp.MustCompile(`\b(os\.Getenv|os\.LookupEnv|os\.Environ|syscall\.Getenv|secure_getenv)\s*\(|\bcGetenv\s*\(|\bgetenv\s*\(\s*"EBSP_`)
	checked := 0
	for _, dir := range []string{"capi", "runtime", "emesh", "env"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || !(strings.HasSuffix(f, ".go") || strings.HasSuffix(f, ".c") || strings.HasSuffix(f, ".h")) {
				continue
			}
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			checked++
			text := string(b)
			var unknown []string
			for _, name := range token.FindAllString(text, -1) {
				if !known[name] && !strings.HasSuffix(name, "_H") {
					unknown = append(unknown, name)
				}
			}
			sort.Strings(unknown)
			assert.Empty(t, unknown, "%s names variables that env.Vars does not list", f)
			for _, loc := range reads.FindAllStringIndex(text, -1) {
				call := text[loc[0]:loc[1]]
				if f == filepath.Join("..", "capi", "env.go") && strings.HasPrefix(call, "cGetenv") {
					continue // its definition
				}
				t.Errorf("%s reads the environment (%s): read it in package env", f, call)
			}
		}
	}
	assert.Greater(t, checked, 50)
}
