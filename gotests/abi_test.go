package gotests

import (
	"debug/elf"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
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

// publicHeaders are the headers a program includes, each with the headers
// of ours it brings in that declare functions.
var publicHeaders = []string{"host_bsp.h", "e_bsp.h"}

// referenceDir is the include directory of an EBSP 1.0 checkout named by
// $EBSP_REFERENCE (its top directory, holding include/). EBSP's headers are
// not kept beside this repository, so without it the test is skipped.
func referenceDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("EBSP_REFERENCE")
	if dir == "" || dir == "none" {
		t.Skip("SKIPPED: EBSP_REFERENCE is not set: not comparing with EBSP 1.0's own headers " +
			"(set it to a checkout of coduin/epiphany-bsp 1.0; TestHeadersMatchEBSP checks our table of them)")
	}
	inc := filepath.Join(dir, "include")
	if _, err := os.Stat(filepath.Join(inc, "e_bsp.h")); err != nil {
		t.Fatalf("EBSP_REFERENCE=%s: EBSP 1.0 headers not found in %s: %v", dir, inc, err)
	}
	return inc
}

// docsDir is EBSP 1.0's documentation beside the repository
// (../shared/reference/ebsp-docs), or $EBSP_DOCS; absent in a user's clone.
func docsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("EBSP_DOCS")
	if dir == "" {
		dir = filepath.Join(repoRoot(), "..", "shared", "reference", "ebsp-docs")
	}
	if _, err := os.Stat(filepath.Join(dir, "api_reference.rst")); err != nil {
		t.Skipf("SKIPPED: EBSP 1.0's documentation not found in %s (set EBSP_DOCS): %v", dir, err)
	}
	return dir
}

// declaration is a function as a header declares it.
type declaration struct {
	file string // base name of the header holding it
	fn   *cc.FunctionType
}

// parseHeader parses dir/header and returns the functions declared in the
// headers of dir it includes, directly or not. Angle-bracket includes are
// looked for in sysDirs too (our include directory holds the e-hal.h and
// e-lib.h stand-ins that the reference headers include).
func parseHeader(t *testing.T, dir, header string, sysDirs ...string) (map[string]declaration, *cc.AST) {
	t.Helper()
	funcs, ast := parseHeaderWith(t, dir, header, "", sysDirs...)
	require.NotEmpty(t, funcs, "no functions found in %s", filepath.Join(dir, header))
	return funcs, ast
}

// parseHeaderWith is parseHeader with predefined lines (macros a program
// may define before the include) and no demand that a function be found.
func parseHeaderWith(t *testing.T, dir, header, predefine string, sysDirs ...string) (map[string]declaration, *cc.AST) {
	t.Helper()
	path := filepath.Join(dir, header)
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	if predefine != "" {
		// A #line keeps the declarations' file name that of the header.
		text = []byte(predefine + "\n#line 1 \"" + path + "\"\n" + string(text))
	}
	cfg, err := cc.NewConfig(goruntime.GOOS, goruntime.GOARCH)
	require.NoError(t, err)
	cfg.IncludePaths = append(cfg.IncludePaths, dir)
	cfg.SysIncludePaths = append(append([]string{dir}, sysDirs...), cfg.SysIncludePaths...)
	ast, err := cc.Translate(cfg, []cc.Source{
		{Name: "<predefined>", Value: cfg.Predefined},
		{Name: "<builtin>", Value: cc.Builtin},
		{Name: path, Value: string(text)},
	})
	require.NoError(t, err, "parse %s", path)
	funcs := map[string]declaration{}
	eachDeclarator(ast, func(d *cc.Declarator) {
		ft, ok := d.Type().(*cc.FunctionType)
		if file := d.Position().Filename; ok && filepath.Dir(file) == dir {
			funcs[d.Name()] = declaration{file: filepath.Base(file), fn: ft}
		}
	})
	return funcs, ast
}

// eachDeclarator calls visit for every declarator of the translation
// unit's top-level declarations.
func eachDeclarator(ast *cc.AST, visit func(*cc.Declarator)) {
	for l := ast.TranslationUnit; l != nil; l = l.TranslationUnit {
		ed := l.ExternalDeclaration
		if ed == nil || ed.Declaration == nil {
			continue
		}
		for il := ed.Declaration.InitDeclaratorList; il != nil; il = il.InitDeclaratorList {
			visit(il.InitDeclarator.Declarator)
		}
	}
}

// declaredFunctions returns the functions of one of our public headers and
// of the headers of ours it includes.
func declaredFunctions(t *testing.T, header string) map[string]declaration {
	t.Helper()
	funcs, _ := parseHeader(t, filepath.Join(repoRoot(), "include"), header)
	return funcs
}

// signature renders a function type in the form a drift must not change:
// the result and parameter types as C spells them (typedef names kept,
// qualifiers of pointed-to types kept, unsigned and unsigned int alike),
// an empty list "()" for an old-style declaration, "(void)" for a
// prototype without parameters, and "..." for a variadic one. Parameter
// names do not count.
func signature(ft *cc.FunctionType) string {
	var params []string
	for _, p := range ft.Parameters() {
		params = append(params, p.Type().String())
	}
	switch {
	case ft.MaxArgs() == 0:
		params = []string{"void"}
	case ft.IsVariadic():
		params = append(params, "...")
	}
	return ft.Result().String() + " (" + strings.Join(params, ", ") + ")"
}

// Every function of EBSP 1.0's public headers (the table ebsp10) is
// declared by ours in exactly EBSP's form, in the header of the same name
// (the deprecated calls in the *_deprecated.h headers). Our extensions are
// free.
func TestHeadersMatchEBSP(t *testing.T) {
	for _, header := range publicHeaders {
		t.Run(header, func(t *testing.T) {
			got, ast := parseHeader(t, filepath.Join(repoRoot(), "include"), header)
			for _, w := range ebsp10 {
				if w.header != header {
					continue
				}
				g, ok := got[w.name]
				if !assert.True(t, ok, "%s: EBSP declares %s in %s; ours does not declare it", header, w.name, w.file) {
					continue
				}
				assert.Equal(t, w.file, g.file, "%s is declared in %s by EBSP", w.name, w.file)
				assert.Equal(t, w.signature, signature(g.fn), "declaration of %s (EBSP's, then ours)", w.name)
			}
			if header == "host_bsp.h" {
				// EBSP's host_bsp.h includes <e-hal.h>; ours includes our stand-in.
				_, ok := ast.Macros["E_OK"]
				assert.True(t, ok, "host_bsp.h brings in <e-hal.h> (E_OK)")
			}
		})
	}
}

// doxygenFunction is a function entry of EBSP's Sphinx documentation:
// ".. doxygenfunction:: name" followed by ":project: ebsp_host" or ebsp_e.
var doxygenFunction = regexp.MustCompile(`(?m)^\.\. doxygenfunction:: (\w+)\s*\n\s*:project: (\w+)`)

// Every function EBSP 1.0's documentation describes is in the table, under
// the header of its side (host or core): the table misses none.
func TestHeadersCoverEBSPDocs(t *testing.T) {
	dir := docsDir(t)
	pages, err := filepath.Glob(filepath.Join(dir, "*.rst"))
	require.NoError(t, err)
	projects := map[string]string{"ebsp_host": "host_bsp.h", "ebsp_e": "e_bsp.h"}
	documented := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range doxygenFunction.FindAllStringSubmatch(string(text), -1) {
			name, header := m[1], projects[m[2]]
			require.NotEmpty(t, header, "%s: %s: unknown doxygen project %s", filepath.Base(page), name, m[2])
			documented++
			assert.True(t, slices.ContainsFunc(ebsp10, func(d struct{ header, file, name, signature string }) bool {
				return d.header == header && d.name == name
			}), "%s documents %s of %s; the table ebsp10 lacks it", filepath.Base(page), name, header)
		}
	}
	assert.Greater(t, documented, 40, "functions found in %s", dir)
}

// With EBSP 1.0's own headers at hand (EBSP_REFERENCE), the table is
// exactly what they declare.
func TestHeadersMatchEBSPSource(t *testing.T) {
	ref := referenceDir(t)
	ours := filepath.Join(repoRoot(), "include")
	for _, header := range publicHeaders {
		want, _ := parseHeader(t, ref, header, ours)
		table := map[string]string{}
		for _, d := range ebsp10 {
			if d.header == header {
				table[d.name] = d.file + ": " + d.signature
			}
		}
		found := map[string]string{}
		for name, d := range want {
			found[name] = d.file + ": " + signature(d.fn)
		}
		assert.Equal(t, found, table, "%s: EBSP's declarations, then the table ebsp10", header)
	}
}

// The comparison tells apart what it must and nothing else.
func TestSignature(t *testing.T) {
	dir := t.TempDir()
	src := `typedef unsigned long size_t;
typedef struct { int a; } handle;
int old();
int proto(void);
void f1(unsigned n, const void *p, size_t s, handle *h);
void f2(unsigned int count, const void *q, size_t s, handle *x);
void f3(unsigned int n, void *p, unsigned long s, handle *h);
void v(const char *fmt, ...);
void cb_old(void (*cb)());
void cb_proto(void (*cb)(void));
void qual(const int n);
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sig.h"), []byte(src), 0o644))
	funcs, _ := parseHeader(t, dir, "sig.h")
	sig := func(name string) string { return signature(funcs[name].fn) }
	assert.Equal(t, "int ()", sig("old"))
	assert.Equal(t, "int (void)", sig("proto"))
	assert.Equal(t, sig("f1"), sig("f2"), "parameter names and unsigned/unsigned int do not count")
	assert.NotEqual(t, sig("f1"), sig("f3"), "const, typedef names do")
	assert.Equal(t, "void (pointer to const char, ...)", sig("v"))
	assert.NotEqual(t, sig("cb_old"), sig("cb_proto"))
	assert.Equal(t, "void (const int)", sig("qual"))
}

// abiOf reduces a declared function to its ABI classes.
func abiOf(ft *cc.FunctionType) cFunc {
	f := cFunc{result: abiClass(ft.Result())}
	for _, p := range ft.Parameters() {
		if p.Type().Kind() != cc.Void {
			f.params = append(f.params, abiClass(p.Type()))
		}
	}
	return f
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

// publicFunctions returns every function that a header of include/
// declares (each header parsed on its own, as test-shim compiles it; bsp.h
// in both of its modes). Those headers are what make install installs, so
// they are the whole public interface.
func publicFunctions(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join(repoRoot(), "include")
	headers, err := filepath.Glob(filepath.Join(dir, "*.h"))
	require.NoError(t, err)
	require.NotEmpty(t, headers)
	out := map[string]string{}
	add := func(header, predefine string) {
		funcs, ast := parseHeaderWith(t, dir, header, predefine)
		for name, d := range funcs {
			out[name] = d.file
		}
		// No header declares an object: the library exports functions only.
		eachDeclarator(ast, func(d *cc.Declarator) {
			if _, fn := d.Type().(*cc.FunctionType); !fn && !d.IsTypename() && filepath.Dir(d.Position().Filename) == dir {
				t.Errorf("%s declares the object %s: the library's interface is functions only", d.Position(), d.Name())
			}
		})
	}
	for _, h := range headers {
		add(filepath.Base(h), "")
	}
	add("bsp.h", "#define MCBSP_COMPATIBILITY_MODE")
	return out
}

// dynamicSymbols lists the symbols a shared object defines for others
// (functions, objects, TLS, whatever their type).
func dynamicSymbols(t *testing.T, path string) map[string]elf.SymType {
	t.Helper()
	f, err := elf.Open(path)
	require.NoError(t, err, "run `make lib` first")
	defer f.Close()
	syms, err := f.DynamicSymbols()
	require.NoError(t, err)
	out := map[string]elf.SymType{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF {
			out[s.Name] = elf.ST_TYPE(s.Info)
		}
	}
	return out
}

// exportedFunctions lists the functions lib/libebsp.so exports.
func exportedFunctions(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for name, typ := range dynamicSymbols(t, filepath.Join(repoRoot(), "lib", "libebsp.so")) {
		if typ == elf.STT_FUNC {
			out[name] = true
		}
	}
	return out
}

// mapFile is the linker version script the library is linked with.
func mapFile() string { return filepath.Join(repoRoot(), "capi", "libebsp.map") }

var updateMap = flag.Bool("update-map", false, "rewrite capi/libebsp.map from the headers of include/")

// writeMap renders the version script for the given public functions.
func writeMap(names []string) string {
	var b strings.Builder
	b.WriteString(`/* libebsp.so.1 exports exactly the functions declared by the headers of
 * include/ (all of them installed, so all public); the Go runtime, the cgo
 * glue and the shim's internals stay local, and no object is exported.
 * gotests/abi_test.go checks this list against the headers and the built
 * libraries; regenerate it with
 *     go test ./gotests -run TestExportMap -update-map
 */
{
  global:
`)
	for _, n := range names {
		b.WriteString("    " + n + ";\n")
	}
	b.WriteString("  local:\n    *;\n};\n")
	return b.String()
}

// readMap returns the global names of the version script.
func readMap(t *testing.T) []string {
	t.Helper()
	text, err := os.ReadFile(mapFile())
	require.NoError(t, err)
	body := string(text)
	body = body[strings.Index(body, "global:")+len("global:") : strings.Index(body, "local:")]
	var names []string
	for _, f := range strings.Split(body, ";") {
		if f = strings.TrimSpace(f); f != "" {
			names = append(names, f)
		}
	}
	return names
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The version script lists the functions of the public headers, no more,
// no fewer.
func TestExportMap(t *testing.T) {
	want := sortedKeys(publicFunctions(t))
	if *updateMap {
		require.NoError(t, os.WriteFile(mapFile(), []byte(writeMap(want)), 0o644))
	}
	assert.Equal(t, want, readMap(t), "capi/libebsp.map is not the list of public functions: regenerate it with "+
		"`go test ./gotests -run TestExportMap -update-map`")
}

// The library exports exactly the functions of the public headers: every
// one of them (a program must link), and nothing else, no internal
// function (sched_run, goPut, hp_remote...), no Go runtime or cgo symbol,
// no object (a kernel reaching into ebsp_self would bind to an internal
// layout). The 32-bit build too when it has been built (make test builds
// it first).
func TestExportList(t *testing.T) {
	public := publicFunctions(t)
	for _, dir := range []string{"lib", "lib32"} {
		t.Run(dir, func(t *testing.T) {
			path := filepath.Join(repoRoot(), dir, "libebsp.so")
			if _, err := os.Stat(path); dir == "lib32" && err != nil {
				t.Skip("lib32 not built (make lib32)")
			}
			exported := dynamicSymbols(t, path)
			checkExports(t, public, exported)
		})
	}
}

// checkExports reports the public functions not exported and the symbols
// exported that are not public functions.
func checkExports(t assert.TestingT, public map[string]string, exported map[string]elf.SymType) {
	var missing, extra []string
	for _, name := range sortedKeys(public) {
		if typ, ok := exported[name]; !ok || typ != elf.STT_FUNC {
			missing = append(missing, name+" ("+public[name]+")")
		}
	}
	for _, name := range sortedKeys(exported) {
		if _, ok := public[name]; !ok {
			extra = append(extra, name+" ("+exported[name].String()+")")
		}
	}
	assert.Empty(t, missing, "functions of the public headers the library does not export (is capi/libebsp.map up to date?)")
	assert.Empty(t, extra, "symbols the library exports that no public header declares")
}

// The comparison catches both directions (it is what keeps the test above
// from passing on anything).
func TestCheckExports(t *testing.T) {
	public := map[string]string{"bsp_sync": "e_bsp.h", "bsp_pid": "e_bsp.h"}
	exact := &recorder{}
	checkExports(exact, public, map[string]elf.SymType{"bsp_sync": elf.STT_FUNC, "bsp_pid": elf.STT_FUNC})
	assert.False(t, exact.failed, "the exact list is reported")
	for name, exported := range map[string]map[string]elf.SymType{
		"missing": {"bsp_sync": elf.STT_FUNC},
		"extra":   {"bsp_sync": elf.STT_FUNC, "bsp_pid": elf.STT_FUNC, "goPut": elf.STT_FUNC},
		"object":  {"bsp_sync": elf.STT_FUNC, "bsp_pid": elf.STT_FUNC, "ebsp_self": elf.STT_TLS},
		"as data": {"bsp_sync": elf.STT_FUNC, "bsp_pid": elf.STT_OBJECT},
	} {
		rec := &recorder{}
		checkExports(rec, public, exported)
		assert.True(t, rec.failed, "%s: not reported", name)
	}
}

// recorder is an assert.TestingT that notes a failure instead of failing.
type recorder struct{ failed bool }

func (r *recorder) Errorf(string, ...any) { r.failed = true }

// The functions implemented in Go are exported with the C types the
// headers declare: compared with the prototypes cgo generated. (Functions
// of the C shim include the headers, so their compiler checks them.) There
// may be none: the shim implements every public function that takes a
// pointer, to check it before Go sees it.
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
	require.Contains(t, goFuncs, "goPut", "the generated prototypes were not parsed")
	for _, header := range publicHeaders {
		for name, d := range declaredFunctions(t, header) {
			if exported, ok := goFuncs[name]; ok {
				assert.Equal(t, abiOf(d.fn).String(), exported.String(), "%s in %s", name, d.file)
			}
		}
	}
}

func TestParseGoExport(t *testing.T) {
	name, f := parseGoExport("extern int ebsp_write(int pid, void* src, off_t dst, int size);")
	assert.Equal(t, "ebsp_write", name)
	assert.Equal(t, "int(int, ptr, long, int)", f.String())
	name, f = parseGoExport("extern void* bsp_stream_create(int a, int b, void* c);")
	assert.Equal(t, "bsp_stream_create", name)
	assert.Equal(t, "ptr(int, int, ptr)", f.String())
}
