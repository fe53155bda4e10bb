package gotests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The files of capi/ call each other in one direction only: a file never
// calls a function of a file that (directly or through others) calls one of
// its own. Layers that call back up are what a hook (a function pointer
// registered once) is for; a reference to a function that is not a call,
// such as handing a callback over, is not an edge.
//
// The graph is built from the sources by pattern, not by a compiler: C
// function definitions start at column 0 and are followed by a body; a
// call is a defined name followed by "(". A static function shadows a
// definition of the same name in another file. Go files contribute their
// top-level functions (cgo exports included), their calls of those, and
// their calls of C functions through "C.name(". Inline functions of a
// header belong to the header.

var (
	cComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	cLiteral = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'`)
	cPreproc = regexp.MustCompile(`(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*`)
	// return type, name, parameters (which may hold parentheses), body
	cDefinition = regexp.MustCompile(`(?m)^([A-Za-z_][\w \t\*]*?)\b([A-Za-z_]\w*)[ \t]*\([^;{}]*?\)[\s]*(?:__attribute__\s*\(\([^;{}]*?\)\)\s*)?\{`)
	cCall       = regexp.MustCompile(`\b([A-Za-z_]\w*)[ \t]*\(`)
)

// cleanC drops comments, string and character literals, and preprocessor
// lines (whose macros would look like definitions).
func cleanC(src string) string {
	src = cComment.ReplaceAllStringFunc(src, func(s string) string {
		return strings.Repeat("\n", strings.Count(s, "\n")) + " "
	})
	src = cLiteral.ReplaceAllString(src, `""`)
	return cPreproc.ReplaceAllString(src, "")
}

type sourceFile struct {
	name    string
	static  map[string]bool // functions only this file sees
	defined map[string]bool // every function it defines
	calls   map[string]bool // names it calls (C: any name followed by "(")
	cCalls  map[string]bool // Go: C.name( calls
}

func parseCFile(t *testing.T, path string) *sourceFile {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := cleanC(string(raw))
	f := &sourceFile{name: filepath.Base(path), static: map[string]bool{}, defined: map[string]bool{}, calls: map[string]bool{}}
	for _, m := range cDefinition.FindAllStringSubmatch(src, -1) {
		typ, name := m[1], m[2]
		switch name {
		case "if", "while", "for", "switch", "return", "sizeof":
			continue
		}
		f.defined[name] = true
		if regexp.MustCompile(`\bstatic\b`).MatchString(typ) {
			f.static[name] = true
		}
	}
	for _, m := range cCall.FindAllStringSubmatch(src, -1) {
		f.calls[m[1]] = true
	}
	return f
}

// parseFolder parses the C and Go files of dir (tests excepted).
func parseFolder(t *testing.T, root, dir string) []*sourceFile {
	var files []*sourceFile
	for _, pattern := range []string{"*.c", "*.h", "*.go"} {
		paths, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			var f *sourceFile
			if strings.HasSuffix(p, ".go") {
				f = parseGoFile(t, p)
			} else {
				f = parseCFile(t, p)
			}
			if rel, err := filepath.Rel(root, p); err == nil && filepath.Dir(rel) != "capi" {
				f.name = filepath.ToSlash(rel)
			}
			files = append(files, f)
		}
	}
	return files
}

func parseGoFile(t *testing.T, path string) *sourceFile {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := &sourceFile{name: filepath.Base(path), static: map[string]bool{}, defined: map[string]bool{}, calls: map[string]bool{}, cCalls: map[string]bool{}}
	for _, d := range file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			f.defined[fd.Name.Name] = true
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			f.calls[fn.Name] = true
		case *ast.SelectorExpr:
			if pkg, ok := fn.X.(*ast.Ident); ok && pkg.Name == "C" {
				f.cCalls[fn.Sel.Name] = true
			}
		}
		return true
	})
	return f
}

// cFolders are the folders whose C files (and the Go beside them) make
// one library with capi/: the scheduler, the faces, the worlds.
var cFolders = []string{"capi", "sched", "emesh/lowmem", "faces/*", "world/*"}

// fileGraph returns, for each file of the folders cFolders of the tree at
// root, the files whose functions it calls. A file of capi/ is named by
// its base name, another by its path in the tree.
func fileGraph(t *testing.T, root string) map[string]map[string]bool {
	var files []*sourceFile
	for _, folder := range cFolders {
		dirs, err := filepath.Glob(filepath.Join(root, folder))
		if err != nil {
			t.Fatal(err)
		}
		for _, dir := range dirs {
			files = append(files, parseFolder(t, root, dir)...)
		}
	}
	cDefs, goDefs := map[string][]string{}, map[string][]string{}
	for _, f := range files {
		defs := cDefs
		if strings.HasSuffix(f.name, ".go") {
			defs = goDefs
			// a cgo export is a C function too
			for name := range f.defined {
				cDefs[name] = append(cDefs[name], f.name)
			}
		}
		for name := range f.defined {
			if !f.static[name] {
				defs[name] = append(defs[name], f.name)
			}
		}
	}
	graph := map[string]map[string]bool{}
	for _, f := range files {
		out := map[string]bool{}
		isGo := strings.HasSuffix(f.name, ".go")
		link := func(names map[string]bool, defs map[string][]string) {
			for name := range names {
				if f.defined[name] && !isGo {
					continue // its own (a static one shadows any other)
				}
				if isGo && f.defined[name] && defs[name] == nil {
					continue
				}
				for _, to := range defs[name] {
					if to != f.name {
						out[to] = true
					}
				}
			}
		}
		if isGo {
			link(f.calls, goDefs)
			link(f.cCalls, cDefs)
		} else {
			link(f.calls, cDefs)
		}
		graph[f.name] = out
	}
	return graph
}

// circles returns the strongly connected components of more than one file.
func circles(graph map[string]map[string]bool) [][]string {
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for w := range graph[v] {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			if len(comp) > 1 {
				sort.Strings(comp)
				out = append(out, comp)
			}
		}
	}
	names := make([]string, 0, len(graph))
	for v := range graph {
		names = append(names, v)
	}
	sort.Strings(names)
	for _, v := range names {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	return out
}

// edgesWithin lists the calls between the files of one circle, "a -> b".
func edgesWithin(graph map[string]map[string]bool, comp []string) []string {
	in := map[string]bool{}
	for _, v := range comp {
		in[v] = true
	}
	var edges []string
	for _, v := range comp {
		for w := range graph[v] {
			if in[w] {
				edges = append(edges, v+" -> "+w)
			}
		}
	}
	sort.Strings(edges)
	return edges
}

// No file of capi/, sched/, faces/ and world/ calls another that calls it
// back, directly or through others: the Go glue calls down into the C
// request path, which calls the glue's exports (comm.go), which call only
// down (core.go, main.go's output helpers).
func TestNoCircleOfFiles(t *testing.T) {
	root := os.Getenv("EBSP_FILEGRAPH_ROOT") // another tree, to look at
	if root == "" {
		root = repoRoot()
	}
	graph := fileGraph(t, root)
	if _, ok := graph["faces/lqcd/channels.c"]; !ok {
		t.Errorf("the graph misses the faces' files (faces/lqcd/channels.c)")
	}
	for _, comp := range circles(graph) {
		t.Errorf("files that call each other in a circle: %s\n  calls: %s",
			strings.Join(comp, ", "), strings.Join(edgesWithin(graph, comp), "; "))
	}
}

// The C files alone form no circle, and the files of each leaf folder
// (layers_test.go: the scheduler, the fixed local addresses) call no file
// outside it: features reach the scheduler through hooks.
func TestSchedulerIsALeaf(t *testing.T) {
	graph := fileGraph(t, repoRoot())
	cOnly := map[string]map[string]bool{}
	for f, out := range graph {
		if strings.HasSuffix(f, ".go") {
			continue
		}
		cOnly[f] = map[string]bool{}
		for to := range out {
			if !strings.HasSuffix(to, ".go") {
				cOnly[f][to] = true
			}
		}
	}
	for _, comp := range circles(cOnly) {
		t.Errorf("C files that call each other in a circle: %s\n  calls: %s",
			strings.Join(comp, ", "), strings.Join(edgesWithin(cOnly, comp), "; "))
	}
	for _, dir := range leafFolders {
		inside := func(f string) bool { return strings.HasPrefix(f, dir+"/") }
		seen := 0
		for f, out := range graph {
			if !inside(f) {
				continue
			}
			seen++
			for to := range out {
				if !inside(to) {
					t.Errorf("%s, a leaf, calls %s", f, to)
				}
			}
		}
		if seen == 0 {
			t.Errorf("no file of %s/ in the graph", dir)
		}
	}
}

// The finder itself: a circle of three files is found, a chain is not, a
// static function of the caller shadows another file's, and a callback
// handed over is no call.
func TestFileGraphFinder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "capi")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.c", "int a(void)\n{\n    return b(); /* c() */\n}\nstatic void helper(void) { }\n")
	write("b.c", "static int helper(void)\n{\n    return 0;\n}\nint b(void)\n{\n    helper();\n    return c();\n}\n")
	write("c.c", "#define a(x) x\nvoid run(void (*fn)(void));\nint c(void)\n{\n    run(a);\n    return 0;\n}\n")
	if got := circles(fileGraph(t, root)); len(got) != 0 {
		t.Errorf("a chain taken for a circle: %v", got)
	}
	write("c.c", "int c(void)\n{\n    return a();\n}\n")
	got := circles(fileGraph(t, root))
	if len(got) != 1 || strings.Join(got[0], " ") != "a.c b.c c.c" {
		t.Errorf("circle a -> b -> c -> a: found %v", got)
	}
	write("d.go", "package x\n\n// #include \"a.h\"\nimport \"C\"\n\n//export d\nfunc d() { C.a() }\n")
	write("c.c", "int c(void)\n{\n    return d();\n}\n")
	got = circles(fileGraph(t, root))
	if len(got) != 1 || strings.Join(got[0], " ") != "a.c b.c c.c d.go" {
		t.Errorf("circle through Go: found %v", got)
	}
}
