package gotests

import (
	"go/ast"
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

// The faces sit below capi: what they need of it, capi gives them in one
// header, capi/faces.h (the emulated core, the C path that carries their
// requests, capi's Go entry points). A face's C (and its Go files' cgo
// preambles) include nothing else of capi/, nor reach capi's own interface
// (capiOwnHeader) through what they include, and the engine below them
// imports neither a face nor capi: a face gives the engine its policy as
// values (engine.Face), the engine never asks for one.
const faceBoundaryHeader = "capi/faces.h"

// layersAbove are the packages the engine must not import.
var layersAbove = []string{modulePath + "/faces", modulePath + "/capi"}

// capiIncludes lists the includes of src, a file of folder dir (slash
// separated, relative to the repository), that reach into capi/ other than
// faceBoundaryHeader.
func capiIncludes(dir, src string) []string {
	var out []string
	for _, m := range includeLine.FindAllStringSubmatch(src, -1) {
		if m[1] != `"` {
			continue
		}
		target := filepath.ToSlash(filepath.Join(dir, m[2]))
		if strings.HasPrefix(target, "capi/") && target != faceBoundaryHeader {
			out = append(out, `"`+m[2]+`"`)
		}
	}
	return out
}

// importsAbove lists the imports among imps of a layer above the engine.
func importsAbove(imps []string) []string {
	var out []string
	for _, imp := range imps {
		for _, above := range layersAbove {
			if imp == above || strings.HasPrefix(imp, above+"/") {
				out = append(out, imp)
			}
		}
	}
	return out
}

// readSources calls visit with the source files (tests included) of dir,
// relative to the repository, and their text; it returns how many.
func readSources(t *testing.T, dir string, visit func(name, src string)) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot(), dir))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || !sourceExt[filepath.Ext(e.Name())] {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(repoRoot(), dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		visit(e.Name(), string(raw))
		n++
	}
	return n
}

// capiOwnHeader is capi's own interface (the part of a core that is
// capi's alone, kernel loading, faults, the world's rounds): no face
// reaches it, neither directly nor through another header; what a face
// sees of the core is capi/core.h, through faceBoundaryHeader.
const capiOwnHeader = "capi/shim.h"

// reachedHeaders lists the files that src, a file of folder dir (slash
// separated, relative to the repository), includes in quotes, directly or
// through the files it includes, in the order first reached; read gives a
// file's text, and false for a path that is not in the repository (the
// compiler then looks in its include folders, which hold no capi header).
func reachedHeaders(dir, src string, read func(path string) (string, bool)) []string {
	seen := map[string]bool{}
	var out []string
	var visit func(dir, src string)
	visit = func(dir, src string) {
		for _, m := range includeLine.FindAllStringSubmatch(src, -1) {
			if m[1] != `"` {
				continue
			}
			path := filepath.ToSlash(filepath.Join(dir, m[2]))
			if seen[path] {
				continue
			}
			seen[path] = true
			out = append(out, path)
			if text, ok := read(path); ok {
				visit(filepath.ToSlash(filepath.Dir(path)), text)
			}
		}
	}
	visit(dir, src)
	return out
}

// reachesHeader tells whether header is among the files src, a file of
// dir, includes directly or through others (reachedHeaders).
func reachesHeader(dir, src, header string, read func(path string) (string, bool)) bool {
	for _, path := range reachedHeaders(dir, src, read) {
		if path == header {
			return true
		}
	}
	return false
}

// readRepoFile is reachedHeaders' read for the repository's files.
func readRepoFile(path string) (string, bool) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(), filepath.FromSlash(path)))
	return string(raw), err == nil
}

func TestFacesSeeCapiThroughOneHeader(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(repoRoot(), "faces", "*"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, abs := range dirs {
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			continue
		}
		dir := filepath.ToSlash(strings.TrimPrefix(abs, repoRoot()+string(filepath.Separator)))
		checked += readSources(t, dir, func(name, src string) {
			if incs := capiIncludes(dir, src); len(incs) > 0 {
				t.Errorf("%s/%s includes %v of capi/: a face sees capi through %s only", dir, name, incs, faceBoundaryHeader)
			}
			if reachesHeader(dir, src, capiOwnHeader, readRepoFile) {
				t.Errorf("%s/%s reaches %s through the headers it includes: a face sees capi/core.h, never capi's own interface",
					dir, name, capiOwnHeader)
			}
		})
	}
	if checked < 10 {
		t.Errorf("only %d source files found under faces/", checked)
	}
}

func TestEngineImportsNoLayerAbove(t *testing.T) {
	checked := readSources(t, "engine", func(name, src string) {
		if !strings.HasSuffix(name, ".go") {
			return
		}
		if imps := importsAbove(moduleImports(t, name, src)); len(imps) > 0 {
			t.Errorf("engine/%s imports %v: a layer above the engine (give it values, as engine.Face)", name, imps)
		}
	})
	if checked == 0 {
		t.Errorf("engine: no source file found")
	}
}

// The two checks above find what they are meant to, and only that.
func TestFaceChecksCatch(t *testing.T) {
	for src, want := range map[string]int{
		`#include "../../capi/faces.h"` + "\n#include <e_bsp.h>\n#include \"lqcd_face.h\"": 0,
		`#include "../../capi/shim.h"`:                                             1,
		`#include "../bsplib/bsplib.h"` + "\n" + `# include "../../capi/direct.h"`: 1,
		`#include "../../sched/scheduler.h"`:                                       0,
	} {
		if got := capiIncludes("faces/qmp", src); len(got) != want {
			t.Errorf("capiIncludes(%q) = %v, want %d", src, got, want)
		}
	}
	files := map[string]string{
		"capi/faces.h":  `#include "core.h"` + "\n" + `#include "direct.h"`,
		"capi/core.h":   `#include "../sched/scheduler.h"`,
		"capi/direct.h": `#include "core.h"`,
		"capi/comm.h":   `#include "direct.h"` + "\n" + `#include "shim.h"`,
		"capi/shim.h":   `#include "core.h"`,
	}
	read := func(path string) (string, bool) { src, ok := files[path]; return src, ok }
	for src, want := range map[string]bool{
		`#include "../../capi/faces.h"` + "\n#include <stdio.h>":                false,
		`#include "../../capi/shim.h"`:                                          true,
		`#include "../../capi/faces.h"` + "\n" + `#include "../../capi/comm.h"`: true,
		`#include "lqcd_face.h"`:                                                false,
	} {
		if got := reachesHeader("faces/qmp", src, capiOwnHeader, read); got != want {
			t.Errorf("reachesHeader(%q) = %v, want %v", src, got, want)
		}
	}
	for imps, want := range map[string]int{
		"libebsp/emesh":                   0,
		"libebsp/faces/bsplib":            1,
		"libebsp/capi":                    1,
		"libebsp/facesx libebsp/capi/sub": 1,
	} {
		if got := importsAbove(strings.Fields(imps)); len(got) != want {
			t.Errorf("importsAbove(%q) = %v, want %d", imps, got, want)
		}
	}
}

// A face owns its lifecycle (faces/ebsp/lifecycle.go, faces/bsplib/section.go,
// faces/run): what a run or a section does at its begin and end. capi's Go
// keeps the exports and the boundary (C memory, the C core tables,
// converting arguments), so it calls none of the engine's methods that
// make up that lifecycle, and writes none of a run's records: the names
// below are those of engine.Machine alone (a core's calls, as
// Core.BeginStandard, are the exports' to make).
var faceLifecycleCalls = map[string]bool{
	"StartRun": true, "FinishRun": true, "SetStats": true, "SetMemoryConfig": true,
	"RegisterKernel": true, "Summary": true, "TraceEvents": true, "RunStartedAt": true,
	"KernelSearchDirs": true,
}

// lifecycleCalls lists the calls in Go source src of a method or function
// named in faceLifecycleCalls, but for a face package's own (a face's
// ebsp.RegisterKernel is what capi calls in place of the engine's).
func lifecycleCalls(t *testing.T, name, src string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	faces := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if strings.HasPrefix(path, modulePath+"/faces/") {
			faces[filepath.Base(path)] = true
			if imp.Name != nil {
				faces[imp.Name.Name] = true
			}
		}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && faceLifecycleCalls[sel.Sel.Name] {
			if pkg, ok := sel.X.(*ast.Ident); !ok || !faces[pkg.Name] {
				out = append(out, sel.Sel.Name)
			}
		}
		return true
	})
	return out
}

// forCapiGo calls visit with each Go source file of capi but its tests.
func forCapiGo(t *testing.T, visit func(name, src string)) {
	t.Helper()
	checked := readSources(t, "capi", func(name, src string) {
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			visit(name, src)
		}
	})
	if checked == 0 {
		t.Errorf("capi: no source file found")
	}
}

func TestCapiLeavesLifecycleToFaces(t *testing.T) {
	forCapiGo(t, func(name, src string) {
		if calls := lifecycleCalls(t, name, src); len(calls) > 0 {
			t.Errorf("capi/%s calls %v: a face's lifecycle, which belongs in the face's package (faces/*), called from the export", name, calls)
		}
	})
}

// The check above finds such calls, and only them.
func TestLifecycleCheckCatches(t *testing.T) {
	for src, want := range map[string]int{
		"package p\nfunc f() { m.StartRun(); x.Put(1) }":                                                              1,
		"package p\nfunc f() { _ = m.SetStats; c.BeginStandard() }":                                                   0,
		"package p\nfunc f() { engine.KernelSearchDirs(a, b, c) }":                                                    1,
		"package p\n// m.FinishRun() in a comment\nfunc f() { g() }\n":                                                0,
		"package p\nimport \"libebsp/faces/ebsp\"\nfunc f() { ebsp.RegisterKernel(l, n, k); m.RegisterKernel(n, k) }": 1,
	} {
		if got := lifecycleCalls(t, "x.go", src); len(got) != want {
			t.Errorf("lifecycleCalls(%q) = %v, want %d", src, got, want)
		}
	}
}

// The MPI job (world/mpi.Job) holds the job's state and decides how it
// ends; capi gives it hooks and carries its exports to it. So capi's Go
// names nothing of world/mpi but the job's type, its hooks and its start:
// a Process, a World or a call of theirs would be job state kept in capi.
const mpiPackage = modulePath + "/world/mpi"

var capiMPINames = map[string]bool{"Job": true, "JobHooks": true, "JoinJob": true}

// mpiNamesBeyondJob lists the names of world/mpi that Go source src uses
// other than those in capiMPINames.
func mpiNamesBeyondJob(t *testing.T, name, src string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pkg := ""
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == mpiPackage {
			pkg = filepath.Base(path)
			if imp.Name != nil {
				pkg = imp.Name.Name
			}
		}
	}
	if pkg == "" {
		return nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == pkg && !capiMPINames[sel.Sel.Name] {
				out = append(out, pkg+"."+sel.Sel.Name)
			}
		}
		return true
	})
	return out
}

func TestCapiHoldsNoMPIJobState(t *testing.T) {
	forCapiGo(t, func(name, src string) {
		if names := mpiNamesBeyondJob(t, name, src); len(names) > 0 {
			t.Errorf("capi/%s uses %v: the MPI job's state and its end belong to world/mpi.Job (give it a hook instead)", name, names)
		}
	})
}

// The check above finds such names, and only them.
func TestMPIJobCheckCatches(t *testing.T) {
	for src, want := range map[string]int{
		"package p\nimport \"libebsp/world/mpi\"\nvar j *mpi.Job\nvar h = mpi.JobHooks{}\nfunc f() { mpi.JoinJob(nil, h); j.End(0) }": 0,
		"package p\nimport \"libebsp/world/mpi\"\nvar p *mpi.Process\nfunc f() { mpi.KindOf(0) }":                                     2,
		"package p\nimport w \"libebsp/world/mpi\"\nvar s *w.World":                                                                   1,
		"package p\nimport \"libebsp/engine\"\nvar mpi struct{ Process int }\nfunc f() int { return mpi.Process }":                    0,
	} {
		if got := mpiNamesBeyondJob(t, "x.go", src); len(got) != want {
			t.Errorf("mpiNamesBeyondJob(%q) = %v, want %d", src, got, want)
		}
	}
}
