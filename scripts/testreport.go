//go:build ignore

// testreport reads `go test -json` on stdin and reports it the way `make test` wants: quiet on
// success, complete on failure, and no skip left unsaid.
//
// On success it prints one line, "<name> ok: P packages (W with tests), T tests, S skipped", then one
// line per skipped test with its reason (the test's last log line before t.Skip's "--- SKIP").
// On failure it prints what plain `go test` prints for the failures: build errors, the full output
// of every failed test (and of tests that never finished: a panic, a timeout), output outside any
// test, the FAIL lines of the failing packages; then "<name> FAIL: ..." naming the failed tests. It
// exits 1 when a test, a package or a build failed, and when the input is not test2json or holds
// no package at all, so a pipe never turns a failure into success (run it under `set -o pipefail`).
//
//	go test -race -json ./... | go run ./scripts/testreport.go -name unit
//	go test -json ./... | go run ./scripts/testreport.go -name unit -slow 10   # and the 10 slowest
//
// -slow N also prints, on success or failure, the N slowest packages and the N slowest tests
// (wall time as go test measured it; parallel tests overlap), to find where the time goes.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string // build-output and build-fail events
}

// timed is a package or test with its elapsed time.
type timed struct {
	name    string
	elapsed float64
}

// report accumulates the stream.
type report struct {
	out      io.Writer
	buf      map[string][]string // output of a running test, by package and test
	skips    []string            // "pkg Test: reason", in the order they finished
	failed   []string            // "pkg Test"
	failPkgs []string            // the failing packages' closing lines
	loose    []string            // output outside any test (a panic in TestMain, build output)
	pkgs     map[string]bool     // packages seen, true when they have tests
	packages []timed
	tests    []timed
	passed   int
	bad      bool
}

func main() {
	name := flag.String("name", "tests", "the step's name, first word of the summary line")
	slow := flag.Int("slow", 0, "also print the `N` slowest packages and tests")
	flag.Parse()
	r := &report{out: os.Stdout, buf: map[string][]string{}, pkgs: map[string]bool{}}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			// Not test2json (go itself failed before running tests): show it and fail.
			r.loose = append(r.loose, sc.Text()+"\n")
			r.bad = true
			continue
		}
		r.add(e)
	}
	if err := sc.Err(); err != nil {
		r.loose = append(r.loose, "testreport: "+err.Error()+"\n")
		r.bad = true
	}
	if len(r.pkgs) == 0 {
		r.bad = true
	}
	ok := r.print(*name)
	if *slow > 0 {
		printSlowest(r.out, "packages", r.packages, *slow)
		printSlowest(r.out, "tests", r.tests, *slow)
	}
	if !ok {
		os.Exit(1)
	}
}

func (r *report) add(e event) {
	key := e.Package + " " + e.Test
	switch {
	case e.Action == "build-output":
		r.loose = append(r.loose, e.Output)
	case e.Action == "build-fail":
		r.bad = true
	case e.Test == "" && e.Action == "start":
		r.pkgs[e.Package] = r.pkgs[e.Package] || false
	case e.Test == "" && e.Action == "output":
		switch {
		case e.Output == "PASS\n" || e.Output == "FAIL\n" || strings.HasPrefix(e.Output, "=== "),
			strings.HasPrefix(e.Output, "ok  "), strings.HasPrefix(e.Output, "?   "),
			strings.HasPrefix(e.Output, "testing: warning: no tests to run"):
		case strings.HasPrefix(e.Output, "FAIL\t"):
			r.failPkgs = append(r.failPkgs, e.Output)
		default:
			r.loose = append(r.loose, e.Output) // a panic or timeout outside any test, TestMain's output
		}
	case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
		r.pkgs[e.Package] = r.pkgs[e.Package] || e.Action != "skip"
		r.packages = append(r.packages, timed{e.Package, e.Elapsed})
		if e.Action == "fail" {
			r.bad = true
		}
	case e.Action == "output":
		if !strings.HasPrefix(strings.TrimSpace(e.Output), "=== ") {
			r.buf[key] = append(r.buf[key], e.Output)
		}
	case e.Action == "pass":
		r.passed++
		r.tests = append(r.tests, timed{key, e.Elapsed})
		delete(r.buf, key)
	case e.Action == "skip":
		r.skips = append(r.skips, short(e.Package)+" "+e.Test+": "+skipReason(r.buf[key]))
		delete(r.buf, key)
	case e.Action == "fail":
		r.bad = true
		r.failed = append(r.failed, short(e.Package)+" "+e.Test)
		r.tests = append(r.tests, timed{key, e.Elapsed})
		r.loose = append(r.loose, r.buf[key]...)
		delete(r.buf, key)
	}
}

// print writes the report and says whether everything passed.
func (r *report) print(name string) bool {
	withTests := 0
	for _, has := range r.pkgs {
		if has {
			withTests++
		}
	}
	tests := r.passed + len(r.failed) + len(r.skips)
	counts := fmt.Sprintf("%d packages (%d with tests), %d tests, %d skipped", len(r.pkgs), withTests, tests, len(r.skips))
	if !r.bad && len(r.buf) == 0 {
		fmt.Fprintf(r.out, "%s ok: %s\n", name, counts)
		r.printSkips()
		return true
	}
	fmt.Fprint(r.out, strings.Join(r.loose, ""))
	for _, lines := range r.buf { // tests that never finished (the binary died): what they said
		fmt.Fprint(r.out, strings.Join(lines, ""))
	}
	fmt.Fprint(r.out, strings.Join(r.failPkgs, ""))
	r.printSkips()
	var why []string
	if len(r.failed) > 0 {
		why = append(why, fmt.Sprintf("%d failed (%s)", len(r.failed), strings.Join(r.failed, ", ")))
	}
	if len(r.buf) > 0 {
		why = append(why, fmt.Sprintf("%d never finished", len(r.buf)))
	}
	if len(r.pkgs) == 0 {
		why = append(why, "no package ran (is the input `go test -json`?)")
	}
	if len(why) == 0 {
		why = append(why, "a package or build failed (output above)")
	}
	fmt.Fprintf(r.out, "%s FAIL: %s; %s\n", name, strings.Join(why, "; "), counts)
	return false
}

func (r *report) printSkips() {
	for _, s := range r.skips {
		fmt.Fprintf(r.out, "  skipped %s\n", s)
	}
}

// logLine is a test's log line as the testing package prints it: "    file_test.go:12: message".
var logLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: `)

// skipReason is what a skipped test logged last before its "--- SKIP" line: t.Skip's message.
func skipReason(lines []string) string {
	var reason []string
	where := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "--- SKIP") {
			break
		}
		if loc := logLine.FindStringIndex(l); loc != nil {
			where = strings.TrimSuffix(strings.TrimSpace(l[:loc[1]]), ":")
			reason = nil
			if msg := strings.TrimSpace(l[loc[1]:]); msg != "" {
				reason = []string{msg}
			}
		} else if t != "" && len(reason) > 0 {
			reason = append(reason, t) // a multi-line message
		}
	}
	if len(reason) == 0 {
		if where != "" {
			return "(no reason given at " + where + ": give t.Skip one)"
		}
		return "(no reason given: give t.Skip one)"
	}
	return strings.Join(reason, " ")
}

// short drops the module path from a package path.
func short(pkg string) string {
	const module = "github.com/cosmoskit/cosmoskit-go/"
	if s := strings.TrimPrefix(pkg, module); s != pkg {
		return s
	}
	if pkg == strings.TrimSuffix(module, "/") {
		return "."
	}
	return pkg
}

func printSlowest(w io.Writer, what string, all []timed, n int) {
	slices.SortStableFunc(all, func(a, b timed) int { return cmp.Compare(b.elapsed, a.elapsed) })
	fmt.Fprintf(w, "slowest %s:\n", what)
	for _, t := range all[:min(n, len(all))] {
		fmt.Fprintf(w, "  %7.2fs %s\n", t.elapsed, strings.TrimPrefix(t.name, "github.com/cosmoskit/cosmoskit-go/"))
	}
}
