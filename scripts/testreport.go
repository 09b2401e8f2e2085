//go:build ignore

// testreport reads `go test -json` on stdin and prints what plain `go test` prints (the output of
// failed tests, the packages' closing ok/FAIL lines) plus every skipped test with its reason, and
// a one-line count, so that a skip (no Docker engine, an image not present) is visible in
// `make test`. It exits 1 when a test, a package or a build failed, and when the input is not
// test2json, so a pipe never turns a failure into success.
//
//	cd integration && go test -json ./... | go run ../scripts/testreport.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // build-output and build-fail events
}

func main() {
	buf := map[string][]string{} // output of a running test, by package and test
	var closing []string         // the packages' closing lines, printed last
	passed, skipped, failed := 0, 0, 0
	bad := false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not test2json (go itself failed before running tests): show it and fail.
			fmt.Println(sc.Text())
			bad = true
			continue
		}
		key := e.Package + " " + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Print(e.Output)
		case e.Action == "build-fail":
			bad = true
		case e.Test == "" && e.Action == "output":
			if e.Output == "PASS\n" || e.Output == "FAIL\n" || strings.HasPrefix(e.Output, "=== ") {
				continue
			}
			if strings.HasPrefix(e.Output, "ok  ") || strings.HasPrefix(e.Output, "FAIL\t") || strings.HasPrefix(e.Output, "?   ") {
				closing = append(closing, e.Output)
				continue
			}
			fmt.Print(e.Output) // a panic or timeout outside any test, TestMain's output
		case e.Test == "" && e.Action == "fail":
			bad = true
		case e.Action == "output":
			if !strings.HasPrefix(strings.TrimSpace(e.Output), "=== ") {
				buf[key] = append(buf[key], e.Output)
			}
		case e.Action == "pass":
			passed++
			delete(buf, key)
		case e.Action == "skip":
			skipped++
			fmt.Print(strings.Join(buf[key], ""))
			delete(buf, key)
		case e.Action == "fail":
			failed++
			bad = true
			fmt.Print(strings.Join(buf[key], ""))
			delete(buf, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		bad = true
	}
	for _, lines := range buf { // tests that never finished (the binary died): show what they said
		fmt.Print(strings.Join(lines, ""))
	}
	fmt.Printf("tests: %d passed, %d skipped, %d failed\n", passed, skipped, failed)
	fmt.Print(strings.Join(closing, ""))
	if bad || (passed+skipped+failed == 0 && len(closing) == 0) {
		os.Exit(1)
	}
}
