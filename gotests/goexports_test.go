package gotests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The C shim calls the engine through functions capi exports with
// //export. cgo writes their prototypes into lib/libebsp-go-exports.h at
// build time, but the shim cannot include that header (it is generated
// from the package the shim is part of, and `make test-shim` compiles the
// shim without it), so it declares them by hand. The generated header is
// the one truth; these tests hold the hand declarations to it: each
// internal export (go*) is declared by hand exactly once, and the C
// compiler finds every hand declaration compatible with cgo's.

// goExports returns the functions of the generated export header.
func goExports(t *testing.T) []string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repoRoot(), "lib", "libebsp-go-exports.h"))
	require.NoError(t, err, "run `make lib` first")
	var names []string
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "extern ") && strings.Contains(line, "(") {
			name, _ := parseGoExport(line)
			names = append(names, name)
		}
	}
	require.NotEmpty(t, names)
	return names
}

// internalExport tells the shim's entries into Go (goPut, goSyncStep...)
// from the public functions implemented in Go (bsp_init, ebsp_move...),
// which the public headers declare.
var internalExport = regexp.MustCompile(`^go[A-Z]`)

// shimSources are the C files and headers of the shim and of the faces.
func shimSources(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"capi", "sched", "faces/*"} {
		for _, pat := range []string{"*.h", "*.c"} {
			m, err := filepath.Glob(filepath.Join(repoRoot(), dir, pat))
			require.NoError(t, err)
			out = append(out, m...)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// Every internal Go export is declared by hand once, in one place: a
// second declaration could drift from the first, a missing one means no C
// code calls the export (dead, or called through an implicit declaration,
// which -Werror would have caught).
func TestGoExportsDeclaredOnce(t *testing.T) {
	var texts = map[string]string{}
	for _, path := range shimSources(t) {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		texts[filepath.Base(path)] = string(b)
	}
	checked := 0
	for _, name := range goExports(t) {
		if !internalExport.MatchString(name) {
			continue
		}
		checked++
		decl := regexp.MustCompile(`(?m)^extern\s[^;{]*\b` + name + `\s*\(`)
		var where []string
		for file, text := range texts {
			for range decl.FindAllStringIndex(text, -1) {
				where = append(where, file)
			}
		}
		assert.Len(t, where, 1, "%s is declared by hand in %v", name, where)
	}
	assert.Positive(t, checked)
}

// compileWithExports compiles, syntax only, the C source src followed by
// the generated export header, the public functions of that header
// renamed (the public headers declare those with their own, const-correct
// types, which TestGoExportsMatchHeaders compares by ABI class). A hand
// declaration that conflicts with cgo's is a compile error.
func compileWithExports(t *testing.T, src string, exports []string) ([]byte, error) {
	t.Helper()
	var b strings.Builder
	b.WriteString(src + "\n")
	for _, name := range exports {
		if !internalExport.MatchString(name) {
			b.WriteString("#define " + name + " cgo_public_" + name + "\n")
		}
	}
	b.WriteString("#include \"libebsp-go-exports.h\"\n")
	root := repoRoot()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	cmd := exec.Command(cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
		"-I"+root, "-I"+filepath.Join(root, "include"), "-I"+filepath.Join(root, "capi"),
		"-I"+filepath.Join(root, "lib"), "-x", "c", "-")
	cmd.Stdin = strings.NewReader(b.String())
	return cmd.CombinedOutput()
}

// Each file of the shim, with cgo's prototypes after it.
func TestGoExportsMatchHandDeclarations(t *testing.T) {
	exports := goExports(t)
	for _, path := range shimSources(t) {
		if !strings.HasSuffix(path, ".c") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			out, err := compileWithExports(t, `#include "`+path+`"`, exports)
			assert.NoError(t, err, "%s", out)
		})
	}
}

// A hand declaration that differs from cgo's fails the check above.
func TestGoExportsMismatchCaught(t *testing.T) {
	exports := goExports(t)
	out, err := compileWithExports(t, "#include \"shim.h\"\nextern int goCoreBegin(int pid);", exports)
	require.NoError(t, err, "the matching declaration: %s", out)
	_, err = compileWithExports(t, "extern long goCoreBegin(int pid);", exports)
	assert.Error(t, err, "a wrong result type is not caught")
	_, err = compileWithExports(t, "extern int goCoreBegin(int pid, int step);", exports)
	assert.Error(t, err, "a wrong parameter list is not caught")
}
