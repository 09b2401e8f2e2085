// Package surface_test checks the library's public surface against what its documentation says.
package surface_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// graphFile is the Markdown file, relative to the repository root, that holds the module's import
// graph and the table of every package; graphMarker is its line right before the graph's fenced
// block.
const (
	graphFile   = "docs/packages.md"
	graphMarker = "<!-- import graph: checked by internal/surface/graph_test.go -->"
)

// update rewrites graphFile's import graph block from go list instead of checking it.
var update = flag.Bool("update", false, "rewrite docs/packages.md's import graph block from go list")

// goTool returns the go command that runs this test.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	t.Fatal("no go command in PATH")
	return ""
}

// listedPackage is what the test reads of `go list -json`.
type listedPackage struct {
	ImportPath string
	GoFiles    []string
	Imports    []string
	Module     *struct {
		Path string
		Main bool
	}
}

// moduleGraph returns, for every package of the main module with non-test Go files, the
// module's packages it imports directly (paths relative to the module), from `go list -deps`.
func moduleGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command(goTool(t), "list", "-deps", "-json=ImportPath,GoFiles,Imports,Module", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	modPath := ""
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Main {
			modPath = p.Module.Path
			break
		}
	}
	if modPath == "" {
		t.Fatal("go list reported no package of the main module")
	}
	rel := func(path string) (string, bool) {
		if path == modPath {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, modPath+"/")
		return r, ok
	}
	graph := map[string][]string{}
	for _, p := range pkgs {
		name, ok := rel(p.ImportPath)
		if !ok || len(p.GoFiles) == 0 { // another module's package, or a test-only directory
			continue
		}
		imports := []string{}
		for _, imp := range p.Imports {
			if r, ok := rel(imp); ok {
				imports = append(imports, r)
			}
		}
		slices.Sort(imports)
		graph[name] = imports
	}
	if len(graph) < 10 {
		t.Fatalf("go list found only %d packages of %s", len(graph), modPath)
	}
	return graph
}

// readmeGraph parses the fenced block after graphMarker in graphFile: one line per package,
// "package: import import ...", in an order where every import is listed above its importer;
// blank lines and lines starting with # are ignored. It also returns the packages in order.
func readmeGraph(t *testing.T, readme []byte) (map[string][]string, []string) {
	t.Helper()
	_, after, ok := bytes.Cut(readme, []byte(graphMarker))
	if !ok {
		t.Fatalf("%s has no %q line before the import graph block", graphFile, graphMarker)
	}
	sc := bufio.NewScanner(bytes.NewReader(after))
	inBlock := false
	graph := map[string][]string{}
	var order []string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			if inBlock {
				return graph, order
			}
			inBlock = true
			continue
		}
		if !inBlock || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, imports, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s import graph: line %q is not \"package: imports...\"", graphFile, line)
		}
		name = strings.TrimSpace(name)
		if _, dup := graph[name]; dup {
			t.Fatalf("%s import graph lists %s twice", graphFile, name)
		}
		list := strings.Fields(imports)
		slices.Sort(list)
		graph[name] = list
		order = append(order, name)
	}
	t.Fatalf("%s import graph: the fenced block after the marker is missing or not closed", graphFile)
	return nil, nil
}

// layers orders a graph bottom-up: layer 0 imports none of the module's packages, layer n imports
// at least one package of layer n-1 and none above.
func layers(graph map[string][]string) [][]string {
	depth := map[string]int{}
	var visit func(p string, seen map[string]bool) int
	visit = func(p string, seen map[string]bool) int {
		if d, ok := depth[p]; ok {
			return d
		}
		if seen[p] { // an import cycle cannot compile; guard anyway
			return 0
		}
		seen[p] = true
		d := 0
		for _, imp := range graph[p] {
			d = max(d, visit(imp, seen)+1)
		}
		depth[p] = d
		return d
	}
	var out [][]string
	for p := range graph {
		d := visit(p, map[string]bool{})
		for len(out) <= d {
			out = append(out, nil)
		}
		out[d] = append(out[d], p)
	}
	for _, l := range out {
		slices.Sort(l)
	}
	return out
}

// formatGraph renders graph as graphFile's block (without the fences), a layer per paragraph.
func formatGraph(graph map[string][]string) string {
	width := 0
	for p := range graph {
		width = max(width, len(p)+1)
	}
	var b strings.Builder
	for i, l := range layers(graph) {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, p := range l {
			line := fmt.Sprintf("%-*s %s", width, p+":", strings.Join(graph[p], " "))
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	return b.String()
}

// TestReadmeImportGraph checks the import graph of docs/packages.md against `go list -deps`, in both
// directions: every package of the module is listed with exactly the module packages it imports,
// nothing else is listed, and every import is listed above its importer (the graph points down
// the list). On a difference it prints the block to paste.
func TestReadmeImportGraph(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(graphFile)))
	if err != nil {
		t.Fatal(err)
	}
	want := moduleGraph(t, root)
	got, order := readmeGraph(t, readme)

	var diffs []string
	for p, imps := range want {
		listed, ok := got[p]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is missing (it imports %v)", p, imps))
		case !slices.Equal(listed, imps):
			diffs = append(diffs, fmt.Sprintf("%s: %s says it imports %v, go list says %v", p, graphFile, listed, imps))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s is listed but is not a package of the module", p))
		}
	}
	pos := map[string]int{}
	for i, p := range order {
		pos[p] = i
	}
	for _, p := range order {
		for _, imp := range got[p] {
			if i, ok := pos[imp]; ok && i > pos[p] {
				diffs = append(diffs, fmt.Sprintf("%s is listed below %s, which imports it (list imports first)", imp, p))
			}
		}
	}
	if len(diffs) == 0 {
		return
	}
	block := "```text\n" + formatGraph(want) + "```"
	if *update {
		before, after, _ := bytes.Cut(readme, []byte(graphMarker))
		_, rest, ok := bytes.Cut(after, []byte("```text\n"))
		if ok {
			_, rest, ok = bytes.Cut(rest, []byte("```"))
		}
		if !ok {
			t.Fatalf("%s import graph: cannot find the ```text block after the marker to rewrite", graphFile)
		}
		out := slices.Concat(before, []byte(graphMarker+"\n"+block), rest)
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(graphFile)), out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s's import graph block:\n  %s", graphFile, strings.Join(diffs, "\n  "))
		return
	}
	slices.Sort(diffs)
	t.Errorf("%s's import graph differs from go list:\n  %s\n\n"+
		"Run `go test ./internal/surface -run TestReadmeImportGraph -update`, or replace the block after %s with:\n\n%s",
		graphFile, strings.Join(diffs, "\n  "), graphMarker, block)
}

// TestDependencyClaims checks what the README and package docs promise a package does not link:
// cosmoserr neither OpenTelemetry nor azidentity; repository (over a plain container) and
// changefeed (which takes azcosmos handles, EnsureLeases included) neither cosmoskit, azidentity
// nor MSAL.
func TestDependencyClaims(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, c := range []struct {
		pkg       string
		forbidden []string
	}{
		{"./cosmoserr", []string{"go.opentelemetry.io/", "github.com/Azure/azure-sdk-for-go/sdk/azidentity"}},
		{"./repository", []string{"github.com/cosmoskit/cosmoskit-go/cosmoskit\n", "github.com/Azure/azure-sdk-for-go/sdk/azidentity", "github.com/AzureAD/microsoft-authentication-library-for-go"}},
		{"./changefeed", []string{"github.com/cosmoskit/cosmoskit-go/cosmoskit\n", "github.com/Azure/azure-sdk-for-go/sdk/azidentity", "github.com/AzureAD/microsoft-authentication-library-for-go"}},
	} {
		cmd := exec.Command(goTool(t), "list", "-deps", c.pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", c.pkg, err)
		}
		for dep := range strings.Lines(string(out)) {
			for _, f := range c.forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s links %s; the README says it does not link %s", c.pkg, strings.TrimSpace(dep), f)
				}
			}
		}
	}
}

// packageTable returns the packages named in the first cell of the table rows ("| `pkg` |") of the
// section of file that starts with heading (a line such as "## Packages"), up to the next heading
// of the same or a higher level.
func packageTable(t *testing.T, root, file, heading string) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	level, _, _ := strings.Cut(heading, " ")
	var section []string
	found, in, code := false, false, false
	for line := range strings.Lines(string(text)) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "```") {
			code = !code
		}
		if h, _, ok := strings.Cut(line, " "); !code && ok && h != "" && strings.Trim(h, "#") == "" && len(h) <= len(level) {
			if in {
				break
			}
			in = line == heading
			found = found || in
			continue
		}
		if in {
			section = append(section, line)
		}
	}
	if !found {
		t.Fatalf("%s has no %q section", file, heading)
	}
	listed := map[string]bool{}
	for _, line := range section {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.Split(line, "|")[1]
		for i, part := range strings.Split(cell, "`") {
			if i%2 == 1 {
				listed[part] = true
			}
		}
	}
	for p := range listed {
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p, "/...")))
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("the package table of %s lists %s, which is not a directory of the repository", file, p)
		}
	}
	return listed
}

// TestReadmePackageTable checks the two package tables against the module: the table of
// docs/packages.md names every package (in a row's first cell; `examples/...` stands for the
// examples), and the README's short table every public package and command (not internal/ or
// examples/); neither names a directory that does not exist.
func TestReadmePackageTable(t *testing.T) {
	root := filepath.Join("..", "..")
	graph := moduleGraph(t, root)
	all := packageTable(t, root, graphFile, "# Packages and the import graph")
	readme := packageTable(t, root, "README.md", "## Packages")
	for p := range graph {
		if strings.HasPrefix(p, "examples/") && all["examples/..."] {
			continue
		}
		if !all[p] {
			t.Errorf("the package table of %s does not list %s", graphFile, p)
		}
		public := p != "." && p != "internal" && !strings.HasPrefix(p, "internal/") && !strings.HasPrefix(p, "examples/")
		if public && !readme[p] {
			t.Errorf("the README's package table does not list %s", p)
		}
	}
}

// TestEveryPackageHasRunnableExample checks that every public package (not internal/, cmd/ or
// examples/) has at least one Example function with an // Output: comment, which go test runs and
// compares, so that the example go doc and pkg.go.dev show is known to compile and to work.
func TestEveryPackageHasRunnableExample(t *testing.T) {
	root := filepath.Join("..", "..")
	cmd := exec.Command(goTool(t), "list", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	checked := 0
	for {
		var p struct {
			ImportPath, Dir           string
			TestGoFiles, XTestGoFiles []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p.ImportPath, "/internal/") || strings.Contains(p.ImportPath, "/cmd/") || strings.Contains(p.ImportPath, "/examples/") {
			continue
		}
		checked++
		fset := token.NewFileSet()
		var files []*ast.File
		for _, name := range slices.Concat(p.TestGoFiles, p.XTestGoFiles) {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		runs := 0
		for _, ex := range doc.Examples(files...) {
			if ex.Output != "" || ex.EmptyOutput {
				runs++
			}
		}
		if runs == 0 {
			t.Errorf("%s has no Example function with an // Output: comment", p.ImportPath)
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d public packages", checked)
	}
}

// TestInternalImportsOnlyInternal checks the layering rule of the import graph: a package under
// internal/ (the protocol facts, parsers and hand-over points the public packages share) imports
// only other internal packages of the module, never a public one, which would run the graph from
// a lower layer up to a higher one (as internal/clientaccess once did with diagnostics).
func TestInternalImportsOnlyInternal(t *testing.T) {
	graph := moduleGraph(t, filepath.Join("..", ".."))
	internal := func(p string) bool { return p == "internal" || strings.HasPrefix(p, "internal/") }
	checked := 0
	for p, imports := range graph {
		if !internal(p) {
			continue
		}
		checked++
		for _, imp := range imports {
			if !internal(imp) {
				t.Errorf("%s imports the public package %s: internal packages import only internal ones (hand a value over as an interface or an opaque field instead)", p, imp)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("checked only %d internal packages", checked)
	}
}
