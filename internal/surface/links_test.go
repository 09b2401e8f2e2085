package surface_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches a Markdown link or image target: [text](target) or [text](target "title").
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// inlineCode matches a code span, whose text is not a link.
var inlineCode = regexp.MustCompile("`[^`]*`")

// markdownDoc is what the link checks read of a Markdown file.
type markdownDoc struct {
	links   []docLink       // relative links, outside code
	anchors map[string]bool // GitHub's anchors of its headings
	lines   int
}

// docLink is one relative link of a Markdown file.
type docLink struct {
	line   int
	target string
}

// readMarkdown reads file (relative to root, with forward slashes): its relative links and the
// anchors of its headings, both outside fenced code blocks.
func readMarkdown(t *testing.T, root, file string) markdownDoc {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	d := markdownDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	code := false
	for i, line := range strings.Split(string(text), "\n") {
		d.lines = i + 1
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			code = !code
			continue
		}
		if code {
			continue
		}
		if h, title, ok := strings.Cut(line, " "); ok && h != "" && strings.Trim(h, "#") == "" {
			a := anchor(title)
			if n := seen[a]; n > 0 { // GitHub numbers repeated headings: x, x-1, x-2
				d.anchors[fmt.Sprintf("%s-%d", a, n)] = true
			} else {
				d.anchors[a] = true
			}
			seen[a]++
		}
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			d.links = append(d.links, docLink{line: i + 1, target: target})
		}
	}
	return d
}

// anchor is GitHub's anchor for a heading: lower case, spaces as hyphens, other punctuation dropped.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocLinks checks every relative link of README.md, docs/*.md and the project's CHANGELOG,
// CONTRIBUTING and SECURITY pages: the file it names exists,
// and a #fragment into a Markdown file (or the same file) is one of its headings' anchors.
func TestDocLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	docs := map[string]markdownDoc{}
	read := func(file string) markdownDoc {
		d, ok := docs[file]
		if !ok {
			d = readMarkdown(t, root, file)
			docs[file] = d
		}
		return d
	}
	checked := 0
	for _, file := range append(markdownFiles(t, root), "CHANGELOG.md", "CONTRIBUTING.md", "SECURITY.md") {
		for _, l := range read(file).links {
			checked++
			target, frag, _ := strings.Cut(l.target, "#")
			resolved := file
			if target != "" {
				resolved = path.Join(path.Dir(file), target)
				if strings.HasPrefix(resolved, "../") {
					t.Errorf("%s:%d: %s points outside the repository", file, l.line, l.target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(resolved))); err != nil {
					t.Errorf("%s:%d: %s: no such file (%s)", file, l.line, l.target, resolved)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(resolved, ".md") && !read(resolved).anchors[frag] {
				t.Errorf("%s:%d: %s: %s has no heading with anchor #%s", file, l.line, l.target, resolved, frag)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d links", checked)
	}
}

// TestReadmeFrontDoor checks what makes the README a page a newcomer reads in five minutes: under
// 300 lines, a Versioning section, the two set-up commands (the second the one CI runs), a
// `go run` line for every program under examples/, a link to
// the project's files (LICENSE, CHANGELOG, SECURITY, CONTRIBUTING), and a link to every docs/*.md,
// so that each page moved out of the README is one click away.
func TestReadmeFrontDoor(t *testing.T) {
	root := filepath.Join("..", "..")
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := readMarkdown(t, root, "README.md")
	if readme.lines >= 300 {
		t.Errorf("README.md has %d lines; keep it under 300 and move reference text to docs/", readme.lines)
	}
	if !readme.anchors["versioning"] {
		t.Error("README.md has no ## Versioning section")
	}
	for _, cmd := range []string{"go run ./examples/quickstart", "make test"} {
		if !strings.Contains(string(text), "\n"+cmd+" ") {
			t.Errorf("README.md's set-up does not show %q at the start of a line", cmd)
		}
	}
	examples, err := os.ReadDir(filepath.Join(root, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		if e.IsDir() && !strings.Contains(string(text), "\ngo run ./examples/"+e.Name()+" ") {
			t.Errorf("README.md's examples do not show `go run ./examples/%s`", e.Name())
		}
	}
	linked := map[string]bool{}
	for _, l := range readme.links {
		target, _, _ := strings.Cut(l.target, "#")
		linked[path.Clean(target)] = true
	}
	want := []string{"LICENSE", "CHANGELOG.md", "SECURITY.md", "CONTRIBUTING.md"}
	for _, file := range markdownFiles(t, root) {
		if file != "README.md" {
			want = append(want, file)
		}
	}
	for _, w := range want {
		if !linked[w] {
			t.Errorf("README.md does not link %s", w)
		}
	}
}
