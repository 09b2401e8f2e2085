package surface_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The ```go blocks of README.md and of every docs/*.md are compiled (go build) and vetted (go vet)
// by TestReadmeSnippets, so that a snippet a reader copies is known to type-check against the code.
// The convention:
//
//   - A block is Go as a reader would paste it into a function returning error: statements, with
//     the names the README assumes throughout (ctx, container, client, orders, Order, ...) declared
//     in testdata/readme_prelude.go. Each block is the body of a function of its own, so two blocks
//     may declare the same names.
//   - A block made of declarations only (func TestOrders(t *testing.T) {...}, a type) is compiled
//     at file level, in a package of its own; one that starts with a package clause is compiled as
//     the whole file it is.
//   - Imports are added from the package names the block uses (the module's public packages and
//     the standard and SDK packages in snippetImports); a block with a package clause brings its own.
//   - "..." standing for code left out is allowed where a statement goes: a line of its own, or
//     "{ ... }". A variable a block declares and does not use is not an error (the block shows it).
//   - A block that is intentionally partial (pseudo-code, a signature) is preceded, on the line
//     before its fence, by <!-- snippet not compiled: the reason -->.
//
// A failing block is reported at its file and line (the generated files carry //line directives).

// snippetSkip starts the HTML comment that marks the next ```go block as intentionally partial.
const snippetSkip = "<!-- snippet not compiled:"

// snippetPrelude declares the names the README's snippets assume (it has no imports: they are
// added like a snippet's).
const snippetPrelude = "testdata/readme_prelude.go"

// snippetImports are the packages outside the module that snippets may use by name, with their
// import paths; the module's public packages are added from go list.
var snippetImports = map[string]string{
	"bytes": "bytes", "context": "context", "errors": "errors", "fmt": "fmt", "fs": "io/fs",
	"http": "net/http", "io": "io", "iter": "iter", "json": "encoding/json", "log": "log",
	"maps": "maps", "math": "math", "os": "os", "slices": "slices", "slog": "log/slog",
	"strconv": "strconv", "strings": "strings", "sync": "sync", "testing": "testing", "time": "time",

	"azcore":     "github.com/Azure/azure-sdk-for-go/sdk/azcore",
	"azcosmos":   "github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos",
	"azidentity": "github.com/Azure/azure-sdk-for-go/sdk/azidentity",
	"policy":     "github.com/Azure/azure-sdk-for-go/sdk/azcore/policy",
	"otel":       "go.opentelemetry.io/otel",
	"attribute":  "go.opentelemetry.io/otel/attribute",
	"metric":     "go.opentelemetry.io/otel/metric",
	"trace":      "go.opentelemetry.io/otel/trace",
}

// snippet is one ```go block of a Markdown file.
type snippet struct {
	file string // the Markdown file, relative to the repository root (README.md, docs/client.md)
	line int    // line of the block's first line of code in file
	code string // the block's text
	skip string // the reason given with snippetSkip, "" if compiled
}

// readmeSnippets returns the ```go blocks of readme, the Markdown file named file. It fails on an
// unclosed block and on a skip marker without a reason.
func readmeSnippets(t *testing.T, file string, readme []byte) []snippet {
	t.Helper()
	var out []snippet
	var cur *snippet
	var body strings.Builder
	prev := "" // the last non-blank line outside a block
	fence := ""
	for i, line := range strings.Split(string(readme), "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = trimmed
			if info := strings.Fields(strings.TrimPrefix(trimmed, "```")); len(info) > 0 && info[0] == "go" {
				cur = &snippet{file: file, line: n + 1}
				body.Reset()
				if reason, ok := strings.CutPrefix(prev, snippetSkip); ok {
					cur.skip = strings.TrimSpace(strings.TrimSuffix(reason, "-->"))
					if cur.skip == "" {
						t.Errorf("%s:%d: %s needs a reason before -->", file, n-1, snippetSkip)
						cur.skip = "no reason"
					}
				}
			}
		case fence != "" && trimmed == "```":
			if cur != nil {
				cur.code = body.String()
				out = append(out, *cur)
				cur = nil
			}
			fence, prev = "", ""
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		case fence == "" && trimmed != "":
			prev = trimmed
		}
	}
	if fence != "" {
		t.Fatalf("%s: a %s block is not closed", file, fence)
	}
	return out
}

// placeholder matches "..." standing for left-out code: a line of its own or "{ ... }".
var (
	placeholderLine  = regexp.MustCompile(`(?m)^(\s*)\.\.\.\s*$`)
	placeholderBlock = regexp.MustCompile(`\{\s*\.\.\.\s*\}`)
)

// generated is the Go source made of a snippet.
type generated struct {
	pkg       string
	src       []byte
	declared  map[string]bool // package-level names the snippet declares
	fileLevel bool
}

// generate turns a snippet into a Go file of package pkg (or the snippet's own package), with
// //line directives pointing at the Markdown file, "..." placeholders as comments, blank uses of the
// variables it declares, and the imports it needs. The transformations keep every line where it
// was.
func generate(s snippet, imports map[string]string) (generated, error) {
	code := placeholderLine.ReplaceAllString(s.code, "$1// ...")
	code = placeholderBlock.ReplaceAllString(code, "{ /* ... */ }")
	directive := fmt.Sprintf("//line %s:%d:1\n", s.file, s.line)
	g := generated{pkg: "snippets", declared: map[string]bool{}}

	var head, src string
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, "", code, parser.PackageClauseOnly); err == nil {
		// A whole file: its own package clause and imports.
		g.pkg, g.fileLevel = f.Name.Name, true
		src = directive + code
	} else if f, err := parser.ParseFile(fset, "", "package snippets\n"+code, parser.SkipObjectResolution); err == nil && len(f.Decls) > 0 {
		g.fileLevel = true
		head, src = "package snippets\n", directive+code
	} else {
		// Statements, in a function returning error (snippets may return err), ending in
		// "return nil" unless they end in a return themselves.
		head, src = "package snippets\n\nfunc _() error {\n", directive+code+"return nil\n}\n"
		if f, err := parser.ParseFile(fset, "", head+directive+code+"}\n", parser.SkipObjectResolution); err == nil {
			body := f.Decls[0].(*ast.FuncDecl).Body.List
			if len(body) > 0 {
				if _, ok := body[len(body)-1].(*ast.ReturnStmt); ok {
					src = directive + code + "}\n"
				}
			}
		}
	}

	fset = token.NewFileSet()
	full := head + src
	f, err := parser.ParseFile(fset, s.file, full, parser.ParseComments)
	if err != nil {
		return g, err
	}
	for _, d := range f.Decls {
		for _, name := range declNames(d) {
			g.declared[name] = true
		}
	}
	out := []byte(insertBlankUses(fset, f, full))
	if head != "" { // add the imports the snippet uses
		need := neededImports(f, imports)
		if len(need) > 0 {
			var b strings.Builder
			b.WriteString("package " + g.pkg + "\n\nimport (\n")
			for _, p := range need {
				b.WriteString("\t" + strconv.Quote(p) + "\n")
			}
			b.WriteString(")\n")
			out = slices.Concat([]byte(b.String()), bytes.TrimPrefix(out, []byte("package "+g.pkg+"\n")))
		}
	}
	g.src = out
	return g, nil
}

// declNames returns the package-level names a declaration declares (not methods).
func declNames(d ast.Decl) []string {
	var names []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			names = append(names, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

// neededImports returns the import paths of the package names f uses that it does not declare.
func neededImports(f *ast.File, imports map[string]string) []string {
	set := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil { // Obj: declared in this file
				if p, ok := imports[id.Name]; ok {
					set[p] = true
				}
			}
		}
		return true
	})
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// insertBlankUses returns src with "; _ = name" after every statement of a function body that
// declares variables (and at the start of the body of an if, for, switch or range that declares
// them), so that a snippet may declare a variable to show it without using it. Insertions stay on
// the line they follow.
func insertBlankUses(fset *token.FileSet, f *ast.File, src string) string {
	type insertion struct {
		at   int
		text string
	}
	var ins []insertion
	uses := func(idents ...ast.Expr) string {
		var b strings.Builder
		for _, e := range idents {
			if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
				b.WriteString("; _ = " + id.Name)
			}
		}
		return b.String()
	}
	atBodyStart := func(body *ast.BlockStmt, text string) {
		if body != nil && text != "" {
			ins = append(ins, insertion{fset.Position(body.Lbrace).Offset + 1, strings.TrimPrefix(text, ";") + ";"})
		}
	}
	defines := func(s ast.Stmt) string {
		switch s := s.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				return uses(s.Lhs...)
			}
		case *ast.DeclStmt:
			if g, ok := s.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				var names []ast.Expr
				for _, sp := range g.Specs {
					for _, n := range sp.(*ast.ValueSpec).Names {
						names = append(names, n)
					}
				}
				return uses(names...)
			}
		}
		return ""
	}
	list := func(stmts []ast.Stmt) {
		for _, s := range stmts {
			if text := defines(s); text != "" {
				ins = append(ins, insertion{fset.Position(s.End()).Offset, text})
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			list(n.List)
		case *ast.CaseClause:
			list(n.Body)
		case *ast.CommClause:
			list(n.Body)
		case *ast.IfStmt:
			atBodyStart(n.Body, defines(n.Init))
		case *ast.ForStmt:
			atBodyStart(n.Body, defines(n.Init))
		case *ast.SwitchStmt:
			if text := defines(n.Init); text != "" && len(n.Body.List) > 0 {
				// the names are in scope in every clause; use them in the first
				if cc, ok := n.Body.List[0].(*ast.CaseClause); ok {
					ins = append(ins, insertion{fset.Position(cc.Colon).Offset + 1, text})
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				atBodyStart(n.Body, uses(n.Key, n.Value))
			}
		}
		return true
	})
	sort.Slice(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
	for _, in := range ins {
		src = src[:in.at] + in.text + src[in.at:]
	}
	return src
}

// prelude returns the prelude's source for package pkg without the declarations a file-level
// snippet makes itself, with its imports.
func prelude(t *testing.T, pkg string, drop map[string]bool, imports map[string]string) []byte {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, snippetPrelude, nil, 0) // without comments: they would be printed out of place
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Imports) > 0 {
		t.Fatalf("%s: no imports, please: they are added from the names it uses", snippetPrelude)
	}
	f.Name.Name = pkg
	f.Decls = slices.DeleteFunc(f.Decls, func(d ast.Decl) bool {
		return slices.ContainsFunc(declNames(d), func(n string) bool { return drop[n] })
	})
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, f); err != nil {
		t.Fatal(err)
	}
	// Re-parse the printed file to resolve identifiers, then add the imports it needs.
	f2, err := parser.ParseFile(token.NewFileSet(), "", b.Bytes(), 0)
	if err != nil {
		t.Fatal(err)
	}
	need := neededImports(f2, imports)
	if len(need) == 0 {
		return b.Bytes()
	}
	header := "package " + pkg + "\n"
	var imp strings.Builder
	imp.WriteString(header + "\nimport (\n")
	for _, p := range need {
		imp.WriteString("\t" + strconv.Quote(p) + "\n")
	}
	imp.WriteString(")\n")
	return slices.Concat([]byte(imp.String()), bytes.TrimPrefix(b.Bytes(), []byte(header)))
}

// moduleImports returns snippetImports plus the module's public packages by name.
func moduleImports(t *testing.T, root string) (map[string]string, string) {
	t.Helper()
	cmd := exec.Command(goTool(t), "list", "-json=Name,ImportPath,Module", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := maps.Clone(snippetImports)
	modPath := ""
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Name, ImportPath string
			Module           *struct{ Path string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module != nil {
			modPath = p.Module.Path
		}
		if p.Name == "main" || strings.Contains(p.ImportPath, "/internal/") {
			continue
		}
		imports[p.Name] = p.ImportPath
	}
	if modPath == "" {
		t.Fatal("go list reported no module")
	}
	return imports, modPath
}

// TestReadmeSnippets builds and vets every ```go block of README.md and docs/*.md (see the
// convention above), each in its own package of a module that requires this one, and reports a
// failing block at its file and line.
func TestReadmeSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the snippets of README.md and docs/*.md with the go command")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var snippets []snippet
	for _, file := range markdownFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		snippets = append(snippets, readmeSnippets(t, file, text)...)
	}
	if len(snippets) < 10 {
		t.Fatalf("found only %d ```go blocks in README.md and docs/*.md", len(snippets))
	}
	imports, modPath := moduleImports(t, root)

	dir := t.TempDir()
	if d := os.Getenv("README_SNIPPETS_DIR"); d != "" { // keep the generated module to look at
		dir = d
	}
	gomod := fmt.Sprintf("module readmesnippets\n\ngo 1.26\n\nrequire %s v0.0.0\n\nreplace %s => %s\n", modPath, modPath, root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte(gomod))
	write("go.sum", sum)

	var failed []string
	compiled := 0
	for _, s := range snippets {
		if s.skip != "" {
			t.Logf("%s:%d: not compiled (%s)", s.file, s.line, s.skip)
			continue
		}
		g, err := generate(s, imports)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s:%d: the ```go block does not parse as statements or declarations: %v", s.file, s.line, err))
			continue
		}
		// Statement blocks share one package (each is a func _ of its own file, so their names
		// never meet); a block of declarations gets a package of its own, whose prelude leaves out
		// what the block declares.
		if g.fileLevel {
			pkg := fmt.Sprintf("decl_%s_%04d", fileTag(s.file), s.line)
			write(filepath.Join(pkg, "snippet.go"), g.src)
			write(filepath.Join(pkg, "prelude.go"), prelude(t, g.pkg, g.declared, imports))
		} else {
			write(filepath.Join("statements", fmt.Sprintf("%s_line%04d.go", fileTag(s.file), s.line)), g.src)
		}
		compiled++
	}
	write(filepath.Join("statements", "prelude.go"), prelude(t, "snippets", nil, imports))

	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local")
	run := func(args ...string) string {
		cmd := exec.Command(goTool(t), args...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err == nil {
			return ""
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("go %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	// Errors in a snippet are reported at file:line; the generated directory is kept in the
	// message's last line for anything else.
	if out := run("build", "-gcflags=-e", "./..."); out != "" {
		failed = append(failed, snippetErrors(out)...)
	} else if out := run("vet", "./..."); out != "" {
		failed = append(failed, snippetErrors(out)...)
	}
	if len(failed) > 0 {
		t.Errorf("Go snippets of README.md and docs/*.md do not compile:\n  %s\n\n"+
			"Fix the snippet, declare a name the docs assume throughout in internal/surface/%s, or mark a block "+
			"that is partial on purpose with %s reason --> on the line before its fence "+
			"(the convention is at the top of internal/surface/snippets_test.go).",
			strings.Join(failed, "\n  "), snippetPrelude, snippetSkip)
	}
	if compiled == 0 {
		t.Fatal("no snippet was compiled")
	}
}

// snippetErrors returns the error lines of go build or vet output, without the "# package" headers.
func snippetErrors(out string) []string {
	var lines []string
	for l := range strings.Lines(out) {
		l = strings.TrimRight(l, "\n")
		if l == "" || strings.HasPrefix(l, "# ") {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// TestReadmeSnippetConvention checks the extraction and the rewriting TestReadmeSnippets relies
// on, on a README of its own: fences, skip markers, placeholders, unused variables and line
// directives.
func TestReadmeSnippetConvention(t *testing.T) {
	readme := strings.Join([]string{
		"# Title",                       // 1
		"```go",                         // 2
		"x, err := strconv.Atoi(\"1\")", // 3
		"if err != nil { ... }",         // 4
		"```",                           // 5
		"<!-- snippet not compiled: a signature -->", // 6
		"```go",                          // 7
		"func F(...)",                    // 8
		"```",                            // 9
		"```sh",                          // 10
		"go test ./...",                  // 11
		"```",                            // 12
		"```go",                          // 13
		"func TestX(t *testing.T) {",     // 14
		"\tfor i, v := range []int{1} {", // 15
		"\t\t...",                        // 16
		"\t}",                            // 17
		"}",                              // 18
		"```",                            // 19
	}, "\n")
	got := readmeSnippets(t, "README.md", []byte(readme))
	if len(got) != 3 || got[0].line != 3 || got[1].skip != "a signature" || got[2].line != 14 || got[2].skip != "" {
		t.Fatalf("snippets = %+v", got)
	}
	imports := map[string]string{"strconv": "strconv", "testing": "testing"}
	g, err := generate(got[0], imports)
	if err != nil {
		t.Fatal(err)
	}
	src := string(g.src)
	for _, want := range []string{`import (` + "\n\t\"strconv\"\n)", "func _() error {\n//line README.md:3:1\n",
		`x, err := strconv.Atoi("1"); _ = x; _ = err` + "\n", "if err != nil { /* ... */ }\n", "return nil\n}"} {
		if !strings.Contains(src, want) {
			t.Errorf("generated statements lack %q:\n%s", want, src)
		}
	}
	g, err = generate(got[2], imports)
	if err != nil {
		t.Fatal(err)
	}
	src = string(g.src)
	if !g.fileLevel || !g.declared["TestX"] || !strings.Contains(src, "range []int{1} { _ = i; _ = v;\n\t\t// ...\n") ||
		!strings.Contains(src, "//line README.md:14:1\nfunc TestX") {
		t.Errorf("generated declarations (file level %v, declared %v):\n%s", g.fileLevel, g.declared, src)
	}
	// A snippet's error is reported at its README line.
	fset := token.NewFileSet()
	_, err = parser.ParseFile(fset, "x.go", "package p\n//line README.md:40:1\nvar x = )\n", 0)
	if err == nil || !strings.HasPrefix(err.Error(), "README.md:40:") {
		t.Errorf("a parse error in a snippet: %v, want it at README.md:40", err)
	}
}

// markdownFiles returns README.md and every docs/*.md, relative to root with forward slashes: the
// documentation whose snippets are compiled and whose links are checked.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md files")
	}
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	return files
}

// fileTag turns a Markdown file's name into part of a Go package or file name ("docs/client.md" →
// "docs_client").
func fileTag(file string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.TrimSuffix(file, ".md"))
}
