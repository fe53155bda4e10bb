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

// cFunc is a function signature reduced to what the ABI depends on: the
// class of the result and of each parameter (int, uint, long, ulong,
// float, double, ptr, void).
type cFunc struct {
	result string
	params []string
}

func (f cFunc) String() string {
	return f.result + "(" + strings.Join(f.params, ", ") + ")"
}

// abiClass reduces a cc type to its ABI class.
func abiClass(t cc.Type) string {
	switch t.Kind() {
	case cc.Ptr, cc.Function, cc.Array:
		return "ptr"
	case cc.Void:
		return "void"
	case cc.Float:
		return "float"
	case cc.Double:
		return "double"
	case cc.Int, cc.Enum:
		return "int"
	case cc.UInt:
		return "uint"
	case cc.Long, cc.LongLong:
		return "long"
	case cc.ULong, cc.ULongLong:
		return "ulong"
	}
	return t.Kind().String()
}

// declaredFunctions parses a public header and returns its function
// declarations.
func declaredFunctions(t *testing.T, header string) map[string]cFunc {
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
	funcs := map[string]cFunc{}
	for l := ast.TranslationUnit; l != nil; l = l.TranslationUnit {
		ed := l.ExternalDeclaration
		if ed == nil || ed.Declaration == nil {
			continue
		}
		for il := ed.Declaration.InitDeclaratorList; il != nil; il = il.InitDeclaratorList {
			d := il.InitDeclarator.Declarator
			ft, ok := d.Type().(*cc.FunctionType)
			if !ok || d.Position().Filename != header {
				continue
			}
			f := cFunc{result: abiClass(ft.Result())}
			for _, p := range ft.Parameters() {
				if p.Type().Kind() != cc.Void {
					f.params = append(f.params, abiClass(p.Type()))
				}
			}
			funcs[d.Name()] = f
		}
	}
	require.NotEmpty(t, funcs, "no functions found in %s", header)
	return funcs
}

// goExportClasses maps the C type names cgo writes in its export header.
var goExportClasses = map[string]string{
	"void": "void", "int": "int", "unsigned int": "uint", "float": "float", "double": "double",
	"long": "long", "off_t": "long", "ssize_t": "long", "size_t": "ulong", "unsigned long": "ulong",
}

// parseGoExport reads "extern int f(int a, void* b);" as written by cgo.
func parseGoExport(line string) (string, cFunc) {
	line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "extern "), ";")
	open := strings.Index(line, "(")
	head, args := line[:open], line[open+1:strings.LastIndex(line, ")")]
	split := strings.LastIndexAny(head, " *")
	name := head[split+1:]
	f := cFunc{result: goTypeClass(head[:split+1])}
	for _, a := range strings.Split(args, ",") {
		if a = strings.TrimSpace(a); a == "" || a == "void" {
			continue
		}
		f.params = append(f.params, goTypeClass(a[:strings.LastIndexAny(a, " *")+1]))
	}
	return name, f
}

func goTypeClass(typ string) string {
	typ = strings.TrimSpace(typ)
	if strings.Contains(typ, "*") {
		return "ptr"
	}
	if c, ok := goExportClasses[strings.TrimPrefix(typ, "const ")]; ok {
		return c
	}
	return "unknown type " + typ
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
	for _, header := range []string{"host_bsp.h", "e_bsp.h", "lqcd_msg.h"} {
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
// headers declare: compared with the prototypes cgo generated. (Functions
// of the C shim include the headers, so their compiler checks them.)
func TestGoExportsMatchHeaders(t *testing.T) {
	generated, err := os.ReadFile(filepath.Join(repoRoot(), "lib", "libebsp-go-exports.h"))
	require.NoError(t, err, "run `make lib` first")
	goFuncs := map[string]cFunc{}
	for _, line := range strings.Split(string(generated), "\n") {
		if strings.HasPrefix(line, "extern ") && strings.Contains(line, "(") {
			name, f := parseGoExport(line)
			goFuncs[name] = f
		}
	}
	checked := 0
	for _, header := range []string{"host_bsp.h", "e_bsp.h"} {
		for name, declared := range declaredFunctions(t, header) {
			exported, ok := goFuncs[name]
			if !ok {
				continue
			}
			checked++
			assert.Equal(t, declared.String(), exported.String(), "%s in %s", name, header)
		}
	}
	assert.Positive(t, checked, "no Go exports compared")
}

func TestParseGoExport(t *testing.T) {
	name, f := parseGoExport("extern int ebsp_write(int pid, void* src, off_t dst, int size);")
	assert.Equal(t, "ebsp_write", name)
	assert.Equal(t, "int(int, ptr, long, int)", f.String())
	name, f = parseGoExport("extern void* bsp_stream_create(int a, int b, void* c);")
	assert.Equal(t, "bsp_stream_create", name)
	assert.Equal(t, "ptr(int, int, ptr)", f.String())
}
