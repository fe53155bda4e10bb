package gotests

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The folders at the bottom of the library's layers: the scheduler and the
// emulated hardware's fixed local addresses. Their C and Go use nothing
// above them: every header they include in quotes lies inside the folder,
// none in angle brackets is one of the library's public headers
// (include/), and their Go imports no package of this module. What they
// need of a layer above comes as a hook or an argument from that layer.
var leafFolders = []string{"sched", "emesh/lowmem"}

// The module's path (go.mod): an import of it or below it is one of ours.
const modulePath = "libebsp"

var includeLine = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]`)

// includesLeaving lists the includes of src, a file of folder dir (slash
// separated, relative to the repository), that reach outside dir: a quoted
// path that leaves it, or an angle-bracket name among publicHeaders.
func includesLeaving(dir, src string, publicHeaders map[string]bool) []string {
	var out []string
	for _, m := range includeLine.FindAllStringSubmatch(src, -1) {
		quote, path := m[1], m[2]
		if quote == "<" {
			if publicHeaders[path] {
				out = append(out, "<"+path+">")
			}
			continue
		}
		inside := filepath.ToSlash(filepath.Join(dir, path))
		if !strings.HasPrefix(inside, dir+"/") {
			out = append(out, `"`+path+`"`)
		}
	}
	return out
}

// moduleImports lists the imports of Go source src that are packages of
// this module.
func moduleImports(t *testing.T, name, src string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path == modulePath || strings.HasPrefix(path, modulePath+"/") {
			out = append(out, path)
		}
	}
	return out
}

// publicHeaderNames: the file names of include/.
func publicHeaderNames(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot(), "include"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

var sourceExt = map[string]bool{".c": true, ".h": true, ".S": true, ".go": true}

func TestLeafFoldersUseNothingAbove(t *testing.T) {
	public := publicHeaderNames(t)
	for _, dir := range leafFolders {
		entries, err := os.ReadDir(filepath.Join(repoRoot(), dir))
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, e := range entries {
			name := e.Name()
			ext := filepath.Ext(name)
			if e.IsDir() || strings.HasSuffix(name, "_test.go") || !sourceExt[ext] {
				continue
			}
			raw, err := os.ReadFile(filepath.Join(repoRoot(), dir, name))
			if err != nil {
				t.Fatal(err)
			}
			src := string(raw)
			checked++
			if ext == ".go" {
				if imps := moduleImports(t, name, src); len(imps) > 0 {
					t.Errorf("%s/%s imports %v: a package above it", dir, name, imps)
				}
				continue
			}
			if incs := includesLeaving(dir, src, public); len(incs) > 0 {
				t.Errorf("%s/%s includes %v: a file above it (use a hook, or pass what it needs)", dir, name, incs)
			}
		}
		if checked == 0 {
			t.Errorf("%s: no source file found", dir)
		}
	}
}

// The checks above report what they are meant to, and only that.
func TestLeafChecksCatch(t *testing.T) {
	public := map[string]bool{"e_bsp.h": true}
	for src, want := range map[string]int{
		`#include "futex.h"` + "\n#include <stdint.h>\n# include \"coro.h\"": 0,
		`#include "../capi/shim.h"`:                             1,
		`#include "sub/../../world/mpi/mpi.h"`:                  1,
		"  #  include <e_bsp.h>":                                1,
		`#include "sub/x.h"` + "\n" + `#include "../sched/x.h"`: 0,
	} {
		if got := includesLeaving("sched", src, public); len(got) != want {
			t.Errorf("includesLeaving(%q) = %v, want %d", src, got, want)
		}
	}
	for src, want := range map[string]int{
		"package p\nimport \"C\"\nimport \"fmt\"\n":                   0,
		"package p\nimport (\n\t\"fmt\"\n\t_ \"libebsp/engine\"\n)\n": 1,
		"package p\nimport \"libebspx\"\n":                            0,
	} {
		if got := moduleImports(t, "x.go", src); len(got) != want {
			t.Errorf("moduleImports(%q) = %v, want %d", src, got, want)
		}
	}
}
