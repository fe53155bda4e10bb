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
	"libebsp/engine"
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
	level, err := ChecksOf(none)
	require.NoError(t, err)
	assert.Equal(t, engine.CheckBoard, level)
	limit, err := CommLimitOf(none)
	require.NoError(t, err)
	assert.Equal(t, 0, limit, "0: the engine's default")
	timeout, err := TimeoutOf(none)
	require.NoError(t, err)
	assert.Equal(t, 0.0, timeout)
	stack, err := StackBytesOf(none)
	require.NoError(t, err)
	assert.Equal(t, defaultStack(), stack)
	stats, err := StatsOf(none)
	require.NoError(t, err)
	slowdown, err := SlowdownOf(none)
	require.NoError(t, err)
	assert.Empty(t, stats+slowdown+TraceOf(none)+KernelPathOf(none))
	workers, err := WorkersOf(none)
	require.NoError(t, err)
	assert.Equal(t, 0, workers, "0: one per CPU")
	rest, err := RestOf(none)
	require.NoError(t, err)
	assert.Equal(t, RestAuto, rest)
}

func defaultStack() int {
	if unsafe.Sizeof(uintptr(0)) == 4 {
		return 256 << 10
	}
	return 2 << 20
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
		Workers: "3", Slowdown: "11.5",
	}.get
	mesh, err := MeshOf(get)
	require.NoError(t, err)
	assert.Equal(t, emesh.Mesh{Rows: 8, Cols: 8}, mesh)
	mem, err := MemoryOf(get)
	require.NoError(t, err)
	assert.Equal(t, emesh.MemoryConfig{LocalSize: 64 << 10, ExtSize: 1 << 20, DMASync: true, DMA: emesh.BoardDMA}, mem)
	level, err := ChecksOf(get)
	require.NoError(t, err)
	assert.Equal(t, engine.CheckStrict, level)
	limit, err := CommLimitOf(get)
	require.NoError(t, err)
	assert.Equal(t, 12, limit)
	timeout, err := TimeoutOf(get)
	require.NoError(t, err)
	assert.Equal(t, 2.5, timeout)
	stack, err := StackBytesOf(get)
	require.NoError(t, err)
	assert.Equal(t, 512<<10, stack)
	stats, err := StatsOf(get)
	require.NoError(t, err)
	assert.Equal(t, "s.json", stats)
	workers, err := WorkersOf(get)
	require.NoError(t, err)
	assert.Equal(t, 3, workers)
	slowdown, err := SlowdownOf(get)
	require.NoError(t, err)
	assert.Equal(t, "11.5", slowdown)
	assert.Equal(t, "t.json", TraceOf(get))
	assert.Equal(t, "/a:/b", KernelPathOf(get))
}

func TestBadValues(t *testing.T) {
	_, err := MeshOf(fake{Mesh: "8y8"}.get)
	assert.Error(t, err)
	_, err = MemoryOf(fake{LocalMem: "lots"}.get)
	assert.ErrorContains(t, err, LocalMem)
	level, err := ChecksOf(fake{Checks: "sometimes"}.get)
	assert.ErrorContains(t, err, Checks)
	assert.Equal(t, engine.CheckBoard, level)
}

// Every setting that cannot be used is an error naming the variable and
// its value, with the default in its place (capi reports it, as for
// EBSP_CHECKS), and the edges of each range are accepted.
func TestOutOfRange(t *testing.T) {
	type getter func(Getenv) (any, error)
	cases := []struct {
		name      string
		get       getter
		bad, good []string
		def       any
	}{
		{Timeout, func(g Getenv) (any, error) { return TimeoutOf(g) },
			[]string{"soon", "-3", "NaN", "Inf", "1e999"}, []string{"0", "0.5", " 30 "}, 0.0},
		{CommLimit, func(g Getenv) (any, error) { return CommLimitOf(g) },
			[]string{"lots", "0", "-1", "1.5", "99999999999999999999"}, []string{"1", "2047"}, 0},
		{StackKB, func(g Getenv) (any, error) { return StackBytesOf(g) },
			[]string{"0", "1", "-5", "63", "big", "1048577"}, []string{"64", "1048576"}, defaultStack()},
		{Workers, func(g Getenv) (any, error) { return WorkersOf(g) },
			[]string{"0", "-2", "many", "4097"}, []string{"1", "4096"}, 0},
		{Stats, func(g Getenv) (any, error) { return StatsOf(g) },
			[]string{"yes", "2", "stats.txt"}, []string{"0", "1", "run.json"}, "1"},
		{Slowdown, func(g Getenv) (any, error) { return SlowdownOf(g) },
			[]string{"fast", "-1", "Inf"}, []string{"0", "12.5"}, nil},
	}
	for _, c := range cases {
		for _, v := range c.bad {
			got, err := c.get(fake{c.name: v}.get)
			if assert.Error(t, err, "%s=%s", c.name, v) {
				assert.Contains(t, err.Error(), c.name+"=", v)
				assert.Contains(t, err.Error(), "using", v)
			}
			if c.def != nil {
				assert.Equal(t, c.def, got, "%s=%s", c.name, v)
			}
		}
		for _, v := range c.good {
			_, err := c.get(fake{c.name: v}.get)
			assert.NoError(t, err, "%s=%s", c.name, v)
		}
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
	for _, dir := range []string{"capi", "engine", "emesh", "env", "world/mpi"} {
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
