package gotests

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"modernc.org/cc/v4"
)

// The BSPlib names that include/bsp.h provides (MulticoreBSP for C 2.0's
// calls and BSPlib's).
var bsplibNames = []string{
	"bsp_init", "bsp_begin", "bsp_end", "bsp_pid", "bsp_nprocs", "bsp_sync", "bsp_time",
	"bsp_abort", "bsp_vabort", "bsp_push_reg", "bsp_pop_reg", "bsp_put", "bsp_get",
	"bsp_hpput", "bsp_hpget", "bsp_direct_get", "bsp_set_tagsize", "bsp_send", "bsp_hpsend",
	"bsp_qsize", "bsp_get_tag", "bsp_move", "bsp_hpmove",
}

// bspHeader parses include/bsp.h, with MCBSP_COMPATIBILITY_MODE defined
// when compat is set, plus a probe declaration showing its types. It
// returns the declared functions and the macros.
func bspHeader(t *testing.T, compat bool) (map[string]cFunc, map[string]*cc.Macro) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repoRoot(), "include", "bsp.h"))
	require.NoError(t, err)
	src := string(text) + "\nvoid bsplib_probe_types(bsp_pid_t, bsp_nprocs_t, bsp_size_t);\n"
	if compat {
		src = "#define MCBSP_COMPATIBILITY_MODE\n" + src
	}
	cfg, err := cc.NewConfig(goruntime.GOOS, goruntime.GOARCH)
	require.NoError(t, err)
	ast, err := cc.Translate(cfg, []cc.Source{
		{Name: "<predefined>", Value: cfg.Predefined},
		{Name: "<builtin>", Value: cc.Builtin},
		{Name: "bsp.h", Value: src},
	})
	require.NoError(t, err, "parse bsp.h (compat %v)", compat)
	funcs := map[string]cFunc{}
	eachDeclarator(ast, func(d *cc.Declarator) {
		ft, ok := d.Type().(*cc.FunctionType)
		if !ok || d.Position().Filename != "bsp.h" {
			return
		}
		f := cFunc{result: abiClass(ft.Result())}
		for _, p := range ft.Parameters() {
			if p.Type().Kind() != cc.Void {
				f.params = append(f.params, abiClass(p.Type()))
			}
		}
		funcs[d.Name()] = f
	})
	return funcs, ast.Macros
}

// Every BSPlib name maps to a declared function that the library exports,
// in both modes, with MulticoreBSP's types (size_t and unsigned, or int in
// compatibility mode).
func TestBSPlibHeader(t *testing.T) {
	exported := exportedFunctions(t)
	for _, compat := range []bool{false, true} {
		funcs, macros := bspHeader(t, compat)
		var missing []string
		for name := range funcs {
			if name != "bsplib_probe_types" && !exported[name] {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		assert.Empty(t, missing, "bsp.h declares functions the library does not export")
		for _, name := range bsplibNames {
			m, ok := macros[name]
			if !assert.True(t, ok, "bsp.h (compat %v) does not define %s", compat, name) {
				continue
			}
			var target []string
			for _, tok := range m.ReplacementList() {
				target = append(target, tok.SrcStr())
			}
			to := strings.Join(target, "")
			assert.Contains(t, funcs, to, "%s maps to %q, which bsp.h does not declare", name, to)
			assert.True(t, strings.HasPrefix(to, "bsplib_"), "%s maps to %q", name, to)
		}
		want := map[bool]map[string]string{
			false: {
				"bsplib_probe_types": "void(uint, uint, ulong)",
				"bsplib_put":         "void(uint, ptr, ptr, ulong, ulong)",
				"bsplib_get":         "void(uint, ptr, ulong, ptr, ulong)",
				"bsplib_push_reg":    "void(ptr, ulong)",
				"bsplib_hpmove":      "ulong(ptr, ptr)",
				"bsplib_time":        "double()",
				"bsplib_begin":       "void(uint)",
			},
			true: {
				"bsplib_probe_types":  "void(int, int, int)",
				"bsplib_put_int":      "void(int, ptr, ptr, int, int)",
				"bsplib_get_int":      "void(int, ptr, int, ptr, int)",
				"bsplib_push_reg_int": "void(ptr, int)",
				"bsplib_hpmove_int":   "int(ptr, ptr)",
				"bsplib_begin_int":    "void(int)",
			},
		}[compat]
		for name, sig := range want {
			assert.Equal(t, sig, funcs[name].String(), "%s (compat %v)", name, compat)
		}
	}
}
