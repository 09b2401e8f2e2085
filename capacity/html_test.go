package capacity_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/internal/browsertest"
)

func spikyPlan(t *testing.T) *capacity.Plan {
	t.Helper()
	w := workedExample()
	w.LoadShape = capacity.PeakHours(3, 0.1)
	w.Patterns = append(w.Patterns, capacity.Pattern{Name: `<script>alert("x")</script>`, Kind: capacity.Read, PeakRPS: 10})
	return mustPlan(t, w)
}

// The page is self-contained: nothing it references is fetched from anywhere, and a pattern name
// cannot inject markup.
func TestHTMLSelfContained(t *testing.T) {
	page := spikyPlan(t).HTML()
	for _, bad := range []string{"<script", "src=", "href=", "@import", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{`<svg id="chart-load"`, `<svg id="chart-cost"`, `<svg id="chart-partitions"`, `id="summary"`, `id="patterns"`, "&lt;script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// The HTML report renders in headless Chromium: its tables and charts show the plan's figures,
// it fetches nothing but itself, and a screenshot of the cost chart shows its bars.
func TestHTMLRendersInBrowser(t *testing.T) {
	p := spikyPlan(t)
	page := p.HTML()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/favicon.ico" { // the browser's own, asked of every site
			requests.Add(1)
		}
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()

	ctx := browsertest.New(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.CSS("svg#chart-cost"))); err != nil {
		t.Fatal(err)
	}
	summary, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#summary")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{fmt.Sprintf("%d RU/s (floor %d)", p.Manual.RUs, p.Manual.FloorRUs), fmt.Sprintf("%.2f USD/month", p.TotalMonthly), string(p.Recommended)} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	patterns, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#patterns")))
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range p.Patterns {
		if !strings.Contains(patterns, pp.Name) || !strings.Contains(patterns, fmt.Sprintf("%.2f", pp.PeakRUs)) {
			t.Errorf("patterns table lacks %s %.2f:\n%s", pp.Name, pp.PeakRUs, patterns)
		}
	}
	// The cost bars carry the plan's monthly totals (no free tier: storage is the same in every mode).
	costs, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](
		`Object.fromEntries([...document.querySelectorAll("rect.cost")].map(r => [r.id, r.dataset.cost]))`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"cost-manual":     p.Manual.MonthlyCost + p.StorageMonthly,
		"cost-autoscale":  p.Autoscale.MonthlyCost + p.StorageMonthly,
		"cost-serverless": p.Serverless.MonthlyCost + p.StorageMonthly,
	}
	for id, w := range want {
		got, err := strconv.ParseFloat(costs[id], 64)
		if err != nil || !near(got, w) {
			t.Errorf("%s = %q, want %.2f", id, costs[id], w)
		}
	}
	// One stacked bar per hour and pattern; one partition bar per physical partition.
	counts, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](
		`[document.querySelectorAll("#chart-load rect.load").length, document.querySelectorAll("#chart-partitions rect.partition").length]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 2 || counts[0] != 24*len(p.Patterns) || counts[1] != p.Partitions {
		t.Errorf("bars: load %v, partitions; want %d and %d", counts, 24*len(p.Patterns), p.Partitions)
	}
	// The charts are drawn: the cost chart's screenshot shows the manual (blue) and autoscale
	// (orange) bars, the load chart's the first pattern's colour.
	for _, c := range []struct {
		sel    string
		colors [][3]uint8
	}{
		{"#chart-cost", [][3]uint8{{0x1f, 0x77, 0xb4}, {0xff, 0x7f, 0x0e}}},
		{"#chart-load", [][3]uint8{{0x1f, 0x77, 0xb4}}},
		{"#chart-partitions", [][3]uint8{{0x94, 0x67, 0xbd}}},
	} {
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(c.sel)))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		for _, col := range c.colors {
			if n := countColor(img, col); n < 50 {
				t.Errorf("%s: %d pixels of #%02x%02x%02x, want a drawn bar", c.sel, n, col[0], col[1], col[2])
			}
		}
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the page made %d requests, want 1 (itself)", n)
	}
}

func countColor(img image.Image, c [3]uint8) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if absDiff(uint8(r>>8), c[0]) < 12 && absDiff(uint8(g>>8), c[1]) < 12 && absDiff(uint8(bl>>8), c[2]) < 12 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}
