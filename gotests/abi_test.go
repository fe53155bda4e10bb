package gotests

import (
	"debug/elf"
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

// declaredFunctions parses a public header and returns its function
// declarations, name -> C type text.
func declaredFunctions(t *testing.T, header string) map[string]string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repoRoot(), "include", header))
	require.NoError(t, err)
	cfg, err := cc.NewConfig(goruntime.GOOS, goruntime.GOARCH)
	require.NoError(t, err)
	cfg.IncludePaths = append(cfg.IncludePaths, filepath.Join(repoRoot(), "include"))
	ast, err := cc.Translate(cfg, []cc.Source{
		{Name: "<predefined>", Value: cfg.Predefined},
		{Name: "<builtin>", Value: cc.Builtin},
		{Name: header, Value: string(text)},
	})
	require.NoError(t, err, "parse %s", header)
	funcs := map[string]string{}
	for l := ast.TranslationUnit; l != nil; l = l.TranslationUnit {
		ed := l.ExternalDeclaration
		if ed == nil || ed.Declaration == nil {
			continue
		}
		for il := ed.Declaration.InitDeclaratorList; il != nil; il = il.InitDeclaratorList {
			d := il.InitDeclarator.Declarator
			if ft, ok := d.Type().(*cc.FunctionType); ok && d.Position().Filename == header {
				funcs[d.Name()] = ft.String()
			}
		}
	}
	require.NotEmpty(t, funcs, "no functions found in %s", header)
	return funcs
}

func exportedSymbols(t *testing.T) map[string]bool {
	t.Helper()
	f, err := elf.Open(filepath.Join(repoRoot(), "lib", "libebsp.so"))
	require.NoError(t, err, "run `make lib` first")
	defer f.Close()
	syms, err := f.DynamicSymbols()
	require.NoError(t, err)
	out := map[string]bool{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF {
			out[s.Name] = true
		}
	}
	return out
}

// Every function our headers declare is exported by the library.
func TestEveryDeclaredFunctionIsExported(t *testing.T) {
	exported := exportedSymbols(t)
	for _, header := range []string{"host_bsp.h", "e_bsp.h"} {
		funcs := declaredFunctions(t, header)
		var missing []string
		for name := range funcs {
			if !exported[name] {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		assert.Empty(t, missing, "%s declares functions the library does not export", header)
	}
}

// The functions implemented in Go are exported with the C types the
// headers declare: compared against the prototypes cgo generated.
func TestGoExportsMatchHeaders(t *testing.T) {
	generated, err := os.ReadFile(filepath.Join(repoRoot(), "lib", "libebsp-go-exports.h"))
	require.NoError(t, err, "run `make lib` first")
	goProtos := map[string]string{}
	for _, line := range strings.Split(string(generated), "\n") {
		if !strings.HasPrefix(line, "extern ") || !strings.Contains(line, "(") {
			continue
		}
		name := line[:strings.Index(line, "(")]
		name = name[strings.LastIndexAny(name, " *")+1:]
		goProtos[name] = line
	}
	checked := 0
	for _, header := range []string{"host_bsp.h", "e_bsp.h"} {
		for name, declared := range declaredFunctions(t, header) {
			proto, ok := goProtos[name]
			if !ok {
				continue // implemented in the C shim, checked by its compiler
			}
			checked++
			assert.Equal(t, paramCount(declared), strings.Count(argList(proto), ",")+boolToInt(argList(proto) != "" && argList(proto) != "void"),
				"%s: header %q vs exported %q", name, declared, proto)
		}
	}
	assert.Positive(t, checked, "no Go exports compared")
}

func argList(proto string) string {
	return strings.TrimSpace(proto[strings.Index(proto, "(")+1 : strings.LastIndex(proto, ")")])
}

// paramCount counts parameters in cc's function type text, e.g.
// "function(pointer to const char, int, pointer to pointer to char) returning int".
func paramCount(typ string) int {
	open := strings.Index(typ, "(")
	closeAt := strings.LastIndex(typ, ") returning")
	if open < 0 || closeAt < 0 {
		return -1
	}
	params := strings.TrimSpace(typ[open+1 : closeAt])
	if params == "" || params == "void" {
		return 0
	}
	return strings.Count(params, ",") + 1
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
