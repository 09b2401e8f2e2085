package surface_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// apidiffBinary returns the apidiff that `make tools` installs (or $APIDIFF). Without it the test
// skips, except under CI, where `make test` installs it before the unit tests run.
func apidiffBinary(t *testing.T) string {
	t.Helper()
	p := os.Getenv("APIDIFF")
	if p == "" {
		out, err := exec.Command(goTool(t), "env", "GOPATH").Output()
		if err != nil {
			t.Fatalf("go env GOPATH: %v", err)
		}
		p = filepath.Join(strings.TrimSpace(string(out)), "bin", "apidiff")
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("apidiff not installed at %s (make tools installs it)", p)
		}
		t.Skipf("apidiff not installed at %s: run `make tools`", p)
	}
	return p
}

// TestAPIGate runs scripts/api.sh (`make api`, `make api-baseline`) on a copy of a package of the
// module in a temporary module: an addition passes, a changed signature and a removed function fail
// naming the package and the identifier and how to accept the change, and the baseline is only
// rewritten once CHANGELOG.md's [Unreleased] section names the change.
func TestAPIGate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apidiff, which builds the copied package")
	}
	t.Parallel()
	apidiff := apidiffBinary(t)
	root := moduleRoot(t)
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(filepath.Join(root, "internal", "plural", "plural.go"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "api.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// The copy is a public package (plural/, not internal/plural/), which the gate compares.
	write("go.mod", "module github.com/cosmoskit/cosmoskit-go\n\ngo 1.26.0\n")
	write("plural/plural.go", string(src))
	write("scripts/api.sh", string(script))
	write("CHANGELOG.md", "# Changelog\n\n## [Unreleased]\n\n## [0.1.0]\n\n- plural.Probe: an older entry does not count.\n")
	probe := func(body string) { write("plural/probe.go", "package plural\n\n"+body) }
	run := func(arg string) (string, bool) {
		t.Helper()
		cmd := exec.Command("bash", filepath.Join(dir, "scripts", "api.sh"), arg)
		cmd.Env = append(os.Environ(), "APIDIFF="+apidiff, "API_ROOT="+dir, "GOFLAGS=-mod=mod")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err == nil
	}
	mustPass := func(step, arg string) {
		t.Helper()
		out, ok := run(arg)
		if !ok {
			t.Fatalf("%s: api.sh %s failed:\n%s", step, arg, out)
		}
		if n := strings.Count(strings.TrimSpace(out), "\n"); n != 0 {
			t.Errorf("%s: api.sh %s printed %d lines, want one:\n%s", step, arg, n+1, out)
		}
	}
	mustFail := func(step, arg string, want ...string) {
		t.Helper()
		out, ok := run(arg)
		if ok {
			t.Fatalf("%s: api.sh %s passed, want a failure:\n%s", step, arg, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: api.sh %s output lacks %q:\n%s", step, arg, w, out)
			}
		}
	}

	probe("// Probe is part of the baseline.\nfunc Probe(n int) string { return Count(n, \"probe\", \"probes\") }\n")
	mustPass("baseline", "baseline")
	mustPass("unchanged", "check")

	probe("// Probe is part of the baseline.\nfunc Probe(n int) string { return Count(n, \"probe\", \"probes\") }\n\n" +
		"// Added is new.\nfunc Added() {}\n")
	mustPass("an added function", "check")

	probe("// Probe changed its signature.\nfunc Probe(n int64) string { return Count(int(n), \"probe\", \"probes\") }\n")
	mustFail("a changed signature", "check", "package plural, identifier Probe: changed from func(int) string to func(int64) string",
		"make api-baseline", "CHANGELOG.md")
	mustFail("accepting without a CHANGELOG entry", "baseline", "plural.Probe")

	write("CHANGELOG.md", "# Changelog\n\n## [Unreleased]\n\n### Changed\n\n- `plural.Probe` takes an int64: convert the argument.\n\n## [0.1.0]\n")
	mustPass("accepting with a CHANGELOG entry", "baseline")
	mustPass("after accepting", "check")

	probe("")
	mustFail("a removed function", "check", "package plural, identifier Probe: removed", "make api-baseline")
}
