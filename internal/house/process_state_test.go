// Package house holds the repository's own rules about its code, checked
// on the source: what no library package may do to the process.
package house

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// libraries are the packages other programs import (issue 30): they must
// leave the process as they found it.
var libraries = []string{"sim", "model", "protocols", "checker", "traces"}

// TestLibrariesLeaveTheProcessAlone fails on a call that tunes the whole
// process (the collector, the memory limit, madvise) and on a
// package-level pool or concurrent map (state shared by every run and
// every user of the package) in a library's non-test source. Process
// tuning belongs to cmd/locksim's main; pools and caches to their
// owner (sim.Pool, an explorer).
func TestLibrariesLeaveTheProcessAlone(t *testing.T) {
	banned := map[string]bool{"SetGCPercent": true, "SetMemoryLimit": true, "FreeOSMemory": true, "Madvise": true}
	files := 0
	for _, lib := range libraries {
		root := filepath.Join("..", "..", lib)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			files++
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && banned[sel.Sel.Name] {
					t.Errorf("%s: %s changes the whole process", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
			for _, decl := range f.Decls {
				g, ok := decl.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					if sel, ok := vs.Type.(*ast.SelectorExpr); ok && isSync(sel) {
						t.Errorf("%s: package-level sync.%s %s: state every run shares", fset.Position(vs.Pos()), sel.Sel.Name, vs.Names[0])
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("only %d library files found: the walk is not reading the repository", files)
	}
}

func isSync(sel *ast.SelectorExpr) bool {
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "sync" && (sel.Sel.Name == "Pool" || sel.Sel.Name == "Map")
}
