package gotests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
	"testing"
)

// A put's bytes are written in one place, the C request path's writer
// (capi/direct.c, engine.PutWriter): the engine decides every put it
// carries and lists it for the writer. So the engine's functions that
// carry a put into its target (the kindPut handler, the block path and
// bsp_hpput), and every function of the engine they call, write no memory
// through a pointer: no copy into bytesAt(p, n) or unsafe.Slice(p, n), no
// assignment to *(*T)(p).
var putCarriers = []string{"applyPut", "applyPuts", "HPPut"}

// pointerWrites lists, for the Go sources of one package (by file name),
// the functions reached from roots through the package's own calls (by
// name: a method and a function of one name are both followed) that write
// through a pointer, each as "function (file)".
func pointerWrites(t *testing.T, sources map[string]string, roots []string) []string {
	t.Helper()
	funcs := map[string][]*ast.FuncDecl{}
	files := map[*ast.FuncDecl]string{}
	for name, src := range sources {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				funcs[fn.Name.Name] = append(funcs[fn.Name.Name], fn)
				files[fn] = name
			}
		}
	}
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	var out []string
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		for _, fn := range funcs[name] {
			if writesThroughPointer(fn.Body) {
				out = append(out, name+" ("+files[fn]+")")
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if callee := calledName(call); callee != "" && !seen[callee] {
						queue = append(queue, callee)
					}
				}
				return true
			})
		}
	}
	sort.Strings(out)
	return out
}

// calledName is the name of the function or method a call names, "" for
// another expression.
func calledName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// writesThroughPointer tells whether body copies into memory made from a
// pointer or assigns through a converted pointer.
func writesThroughPointer(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.CallExpr:
			if id, ok := s.Fun.(*ast.Ident); ok && id.Name == "copy" && len(s.Args) == 2 {
				if dst, ok := s.Args[0].(*ast.CallExpr); ok {
					name := calledName(dst)
					found = found || name == "bytesAt" || name == "Slice"
				}
			}
		case *ast.AssignStmt:
			for _, lhs := range s.Lhs {
				if star, ok := lhs.(*ast.StarExpr); ok {
					if _, conv := star.X.(*ast.CallExpr); conv {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

func TestEngineWritesNoPut(t *testing.T) {
	sources := map[string]string{}
	readSources(t, "engine", func(name, src string) {
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			sources[name] = src
		}
	})
	if len(sources) == 0 {
		t.Fatal("engine: no Go source found")
	}
	all := ""
	for _, src := range sources {
		all += src
	}
	for _, root := range putCarriers {
		if !strings.Contains(all, "func (c *Core) "+root+"(") {
			t.Errorf("engine: no method %s: update putCarriers", root)
		}
	}
	if writes := pointerWrites(t, sources, putCarriers); len(writes) > 0 {
		t.Errorf("engine functions that carry a put write memory through a pointer: %v; list the put for the writer instead (engine/putwrite.go: listPut)", writes)
	}
}

// The check above finds such writes, and only them; the first source is
// how the engine wrote puts before they had one writer.
func TestPutWriteCheckCatches(t *testing.T) {
	for src, want := range map[string]int{
		"package p\nfunc (c *Core) applyPut(r record) { writePut(r.addr, 0, r.data) }\n" +
			"func writePut(addr unsafe.Pointer, offset int, data []byte) {\n" +
			"\tswitch len(data) {\n\tcase 8:\n\t\t*(*[8]byte)(addAt(addr, offset)) = [8]byte(data)\n" +
			"\tdefault:\n\t\tcopy(bytesAt(addAt(addr, offset), len(data)), data)\n\t}\n}\n": 1,
		"package p\nfunc (c *Core) applyPuts(b *Block) { c.grow(); c.listPut(b.addr, b.data) }\n" +
			"func (c *Core) grow() { copy(c.mem, c.old) }\nfunc (c *Core) listPut(a unsafe.Pointer, d []byte) { c.list[0] = entry{a, d} }\n": 0,
		"package p\nfunc (c *Core) HPPut(p unsafe.Pointer) { copy(unsafe.Slice((*byte)(p), 8), c.src) }\n": 1,
		"package p\nfunc (c *Core) completeGet(p unsafe.Pointer) { copy(bytesAt(p, 8), c.src) }\n":         0,
	} {
		if got := pointerWrites(t, map[string]string{"x.go": src}, putCarriers); len(got) != want {
			t.Errorf("pointerWrites(%q) = %v, want %d", src, got, want)
		}
	}
}
