package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"strings"
	"testing"
)

func TestExampleWorkload(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"workload.example.json"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{"1157.10", "Physical partitions:         5", "1200 RU/s", "69.12 USD/month", "Storage cost:                60.00 USD/month", "cross-partition-query"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"-format", "markdown", "workload.example.json"}, &out, &errs); code != 0 {
		t.Fatalf("markdown: exit %d: %s", code, errs.String())
	}
	if !strings.HasPrefix(out.String(), "| Pattern | Kind |") || !strings.Contains(out.String(), "| **Total** |") || !strings.Contains(out.String(), "**1157.10**") {
		t.Errorf("markdown:\n%s", out.String())
	}
	// Markdown warnings name their code once.
	if strings.Contains(out.String(), "cross-partition-query (orders-by-status): cross") || strings.Count(out.String(), "cross-partition-query") != 1 {
		t.Errorf("markdown warning repeats its code:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"-format", "html", "workload.example.json"}, &out, &errs); code != 0 {
		t.Fatalf("html: exit %d: %s", code, errs.String())
	}
	if !strings.HasPrefix(out.String(), "<!doctype html>") || !strings.Contains(out.String(), `<svg id="chart-cost"`) {
		t.Errorf("html: %.300s", out.String())
	}
}

// The spiky example (two hours a day at the peak, two regions, six indexed properties) is
// planned on manual but cheaper on autoscale: the plan says so.
func TestSpikyWorkload(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"workload.spiky.json"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{"Recommended:                 autoscale", "warning: mode: autoscale would cost", "100 GB + 15 GB index = 115 GB"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{}, 2, "usage"},
		{[]string{"-format", "pdf", "x.json"}, 2, "usage"},
		{[]string{write("empty.json", "  \n")}, 2, "workload file: empty"},
		{[]string{write("syntax.json", "{\n  \"patterns\": [\n    {\"name\": \"a\",, \"kind\": \"read\"}\n  ]\n}")}, 2, "line 3, column 18"},
		{[]string{write("type.json", "{\"patterns\": [{\"name\": \"a\", \"kind\": \"read\", \"peakRPS\": \"-4\"}]}")}, 2, "line 1, column"},
		{[]string{write("cut.json", "{\"patterns\": [")}, 2, "line 1, column 14: the JSON ends"},
		{[]string{filepath.Join(dir, "missing.json")}, 1, "no such file"},
		{[]string{write("typo.json", `{"patterns":[{"name":"a","kind":"read","peakRPs":1}], "dataGb": 1, "regons": 2}`)}, 2, `unknown field "regons"`},
		{[]string{write("bad.json", `{"patterns":[{"name":"a","kind":"read","peakRPS":1},{"name":"b","kind":"read","peakRPS":-4}]}`)}, 2, "Workload.Patterns[1].PeakRPS"},
		{[]string{write("two.json", `{"patterns":[]} {}`)}, 2, "data after"},
	} {
		var out, errs bytes.Buffer
		code := run(tc.args, &out, &errs)
		if code != tc.code || !strings.Contains(errs.String(), tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errs.String(), tc.code, tc.msg)
		}
		if strings.Contains(errs.String(), "-4") {
			t.Errorf("%v: the value is echoed: %s", tc.args, errs.String())
		}
	}
}

func FuzzParseWorkload(f *testing.F) {
	data, err := os.ReadFile("workload.example.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"patterns":[{"name":"a","kind":"query","peakRPS":1e308,"documentKB":2048}],"dataGB":1e308}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := parseWorkload(b)
		if err != nil {
			return
		}
		_, _ = capacity.New(w) // never panics
	})
}
