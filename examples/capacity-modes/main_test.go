package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/capacity"
)

// The spiky workload is cheapest on autoscale, the steady one on manual; the printout says why.
func TestModes(t *testing.T) {
	html := filepath.Join(t.TempDir(), "modes.html")
	var out bytes.Buffer
	if err := run(&out, html); err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{
		`(?s)spiky workload.*recommended: autoscale, because the load is spiky enough`,
		`(?s)steady workload.*recommended: manual, because the load is steady enough`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("output lacks %s:\n%s", re, out.String())
		}
	}
	for name, w := range map[string]capacity.Workload{"spiky": spiky(), "steady": steady()} {
		p, err := capacity.New(w)
		if err != nil {
			t.Fatal(err)
		}
		a, m, s := p.Autoscale.MonthlyCost, p.Manual.MonthlyCost, p.Serverless.MonthlyCost
		if name == "spiky" && !(a < m && a < s) || name == "steady" && !(m < a && m < s) {
			t.Errorf("%s: manual %.2f, autoscale %.2f, serverless %.2f", name, m, a, s)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(page), `<svg id="chart-cost"`) {
		t.Errorf("html page: %v", err)
	}
}
