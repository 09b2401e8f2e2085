package surface_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Limits on the first sentence of doc comments, in words: what go doc and pkg.go.dev show in a
// package list or an index, which must say what a thing is for in a line or two.
const (
	maxPackageSynopsisWords = 25
	maxSymbolSynopsisWords  = 30
)

// publicPackage is a package whose doc is on pkg.go.dev: not under internal/ or examples/
// (commands under cmd/ included).
type publicPackage struct {
	ImportPath, Dir, Name string
	rel                   string // path relative to the module, as in docs/packages.md
	doc                   *doc.Package
}

// publicPackages parses the non-test Go files of every public package of the module with go/doc.
func publicPackages(t *testing.T) []publicPackage {
	t.Helper()
	root := filepath.Join("..", "..")
	cmd := exec.Command(goTool(t), "list", "-json=ImportPath,Dir,Name,GoFiles,Module", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []publicPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir, Name string
			GoFiles               []string
			Module                *struct{ Path string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || len(p.GoFiles) == 0 {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, p.Module.Path), "/")
		if rel == "" || rel == "internal" || strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") || strings.HasPrefix(rel, "examples/") {
			continue
		}
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		d, err := doc.NewFromFiles(fset, files, p.ImportPath)
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, publicPackage{ImportPath: p.ImportPath, Dir: p.Dir, Name: p.Name, rel: rel, doc: d})
	}
	if len(pkgs) < 15 {
		t.Fatalf("found only %d public packages", len(pkgs))
	}
	return pkgs
}

// TestPackageDocOpening checks how every public package's doc (go doc, pkg.go.dev) opens: with
// "Package name" (or "Command name"), a first sentence of at most maxPackageSynopsisWords words
// that says what the package is for, and, within its first three blocks, a code block showing its
// main call.
func TestPackageDocOpening(t *testing.T) {
	for _, p := range publicPackages(t) {
		d := p.doc
		if d.Doc == "" {
			t.Errorf("%s has no package doc", p.rel)
			continue
		}
		lead := "Package " + d.Name + " "
		if d.Name == "main" {
			lead = "Command " + filepath.Base(p.rel) + " "
		}
		if !strings.HasPrefix(d.Doc, lead) {
			t.Errorf("%s: the package doc starts %q, want %q", p.rel, firstLine(d.Doc), lead)
		}
		if n := len(strings.Fields(d.Synopsis(d.Doc))); n > maxPackageSynopsisWords {
			t.Errorf("%s: the package doc's first sentence has %d words, at most %d please (say what it is for; details in the next sentences): %q",
				p.rel, n, maxPackageSynopsisWords, d.Synopsis(d.Doc))
		}
		blocks := d.Parser().Parse(d.Doc).Content
		if !slices.ContainsFunc(blocks[:min(3, len(blocks))], func(b comment.Block) bool { _, ok := b.(*comment.Code); return ok }) {
			t.Errorf("%s: the package doc shows no code (its main call) in its first three blocks", p.rel)
		}
	}
}

// longSynopsisAllowed lists the exported identifiers whose doc's first sentence was longer than
// maxSymbolSynopsisWords when the check was added (2026-12-04, issue 37), in packages then being
// edited on other branches. It only shrinks: shorten one and delete its line; the test fails on a
// line that is no longer needed.
var longSynopsisAllowed = map[string]bool{}

// TestSymbolDocSynopsis checks the first sentence of the doc of every exported identifier of the
// public packages (types, functions, methods of exported types, constants and variables; a group
// of constants or variables by its group doc): at most maxSymbolSynopsisWords words, so that
// go doc's and pkg.go.dev's index line says what it is in a line or two.
func TestSymbolDocSynopsis(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range publicPackages(t) {
		d := p.doc
		check := func(name, text string) {
			if text == "" {
				return
			}
			key := p.rel + "." + name
			syn := d.Synopsis(text)
			n := len(strings.Fields(syn))
			if n <= maxSymbolSynopsisWords {
				return
			}
			if longSynopsisAllowed[key] {
				seen[key] = true
				return
			}
			t.Errorf("%s: the doc's first sentence has %d words, at most %d please: %q", key, n, maxSymbolSynopsisWords, syn)
		}
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				var names []string
				for _, spec := range v.Decl.Specs {
					for _, n := range spec.(*ast.ValueSpec).Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
				if len(names) > 0 {
					check(names[0], v.Doc)
				}
			}
		}
		values(d.Consts)
		values(d.Vars)
		for _, f := range d.Funcs {
			check(f.Name, f.Doc)
		}
		for _, typ := range d.Types {
			check(typ.Name, typ.Doc)
			values(typ.Consts)
			values(typ.Vars)
			for _, f := range typ.Funcs {
				check(f.Name, f.Doc)
			}
			for _, m := range typ.Methods {
				check(typ.Name+"."+m.Name, m.Doc)
			}
		}
	}
	for key := range longSynopsisAllowed {
		if !seen[key] {
			t.Errorf("longSynopsisAllowed lists %s, whose first sentence is now short enough (or which is gone): delete its line", key)
		}
	}
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
