package handle_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// undocumented are the fields of public structs still documented in a
// group above them, which go doc does not show with the field: the list
// may only shrink (the test says when one is mended).
var undocumented = map[string]bool{}

// The promise this package serves: what go doc shows of a public package
// names no internal package (a reader could follow it nowhere), but for the
// error types, which are aliases so that errors.As finds them, and every
// exported field of a public struct says what it is where it is declared
// (go doc ./mcptool Options.Limits prints it).
func TestPublicDocsNameNoInternalPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", "github.com/mcpbridge/mcpbridge/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		if strings.Contains(path, "/internal") || strings.Contains(path, "/cmd/") ||
			strings.Contains(path, "/examples/") || strings.Contains(path, "/conformance/") || strings.Contains(path, "/deploy/") {
			continue
		}
		checked++
		checkPackage(t, path, dir)
	}
	if checked < 10 {
		t.Fatalf("checked %d public packages: is the list right?", checked)
	}
}

func checkPackage(t *testing.T, path, dir string) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, p := range pkgs {
		files := make([]*ast.File, 0, len(p.Files))
		internal := map[string]bool{} // the names files import internal packages by
		for _, f := range p.Files {
			files = append(files, f)
			for _, imp := range f.Imports {
				ip, _ := strconv.Unquote(imp.Path.Value)
				if !strings.Contains(ip, "/internal/") {
					continue
				}
				name := ip[strings.LastIndex(ip, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				internal[name] = true
			}
		}
		d, err := doc.NewFromFiles(fset, files, path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		where := func(n ast.Node) string { return fset.Position(n.Pos()).String() }
		naming := func(n ast.Node) (found string) {
			ast.Inspect(n, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && internal[x.Name] {
						found = x.Name + "." + sel.Sel.Name
					}
				}
				return found == ""
			})
			return found
		}
		var decls []*ast.GenDecl
		for _, v := range d.Vars {
			decls = append(decls, v.Decl)
		}
		for _, c := range d.Consts {
			decls = append(decls, c.Decl)
		}
		var funcs []*doc.Func
		funcs = append(funcs, d.Funcs...)
		for _, typ := range d.Types {
			decls = append(decls, typ.Decl)
			for _, v := range typ.Vars {
				decls = append(decls, v.Decl)
			}
			for _, c := range typ.Consts {
				decls = append(decls, c.Decl)
			}
			funcs = append(funcs, typ.Funcs...)
			funcs = append(funcs, typ.Methods...)
		}
		for _, f := range funcs {
			if n := naming(f.Decl.Type); n != "" {
				t.Errorf("%s: %s's signature names %s", where(f.Decl), f.Name, n)
			}
		}
		for _, decl := range decls {
			for _, spec := range decl.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					if n := naming(s.Type); n != "" && !(s.Assign.IsValid() && strings.HasSuffix(s.Name.Name, "Error")) {
						t.Errorf("%s: type %s is %s", where(s), s.Name.Name, n)
					}
					st, ok := s.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, f := range st.Fields.List {
						if len(f.Names) == 0 || !f.Names[0].IsExported() {
							continue
						}
						field := p.Name + "." + s.Name.Name + "." + f.Names[0].Name
						switch documented := f.Doc != nil || f.Comment != nil; {
						case !documented && !undocumented[field]:
							t.Errorf("%s: field %s has no doc where it is declared", where(f), field)
						case documented && undocumented[field]:
							t.Errorf("%s: field %s is documented now: take it off the list undocumented", where(f), field)
						}
					}
				case *ast.ValueSpec:
					for _, name := range s.Names {
						if !name.IsExported() {
							continue
						}
						if n := naming(s); n != "" && !strings.HasPrefix(name.Name, "Err") {
							t.Errorf("%s: %s is %s", where(s), name.Name, n)
						}
					}
				}
			}
		}
	}
}
