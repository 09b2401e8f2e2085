package capacity

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strings"
)

// HTML returns the plan as one self-contained HTML page: no script, no stylesheet or font fetched,
// the charts inline SVG. It holds the summary and pattern tables, the warnings, and three charts:
// the RU/s of each pattern over the load shape (stacked, hour by hour, with the manual and
// autoscale throughput as lines), the monthly cost of each mode side by side (manual, autoscale,
// serverless; a mode that cannot serve the workload is drawn hatched and says why), and the
// physical partitions with each one's share of the peak against its share of the throughput
// (the headroom).
//
// Elements a test or a reader can find: #summary, #patterns and #warnings (tables and list),
// svg#chart-load, svg#chart-cost (bars #cost-manual, #cost-autoscale, #cost-serverless whose
// data-cost is the monthly total), svg#chart-partitions (bars .partition, data-peak and
// data-provisioned per partition).
func (p *Plan) HTML() string {
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, p.htmlData()); err != nil {
		// The template and its data are ours: a failure is a bug, reported in the page.
		return "<!doctype html><title>capacity plan</title><p>capacity: rendering failed: " + template.HTMLEscapeString(err.Error())
	}
	return b.String()
}

// palette colours the patterns (and the modes); distinct enough to tell apart in a screenshot.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

type htmlRow struct{ Key, Value string }

type htmlData struct {
	Title     string
	Summary   []htmlRow
	Patterns  []PatternPlan
	Warnings  []Warning
	Currency  string
	Load      template.HTML
	Cost      template.HTML
	Parts     template.HTML
	LoadNote  string
	PartsNote string
}

func (p *Plan) htmlData() htmlData {
	d := htmlData{Title: "Capacity plan", Patterns: p.Patterns, Warnings: p.Warnings, Currency: p.Workload.Prices.Currency}
	for _, kv := range p.summary() {
		d.Summary = append(d.Summary, htmlRow{kv[0], kv[1]})
	}
	d.Load = template.HTML(p.loadChart())   // #nosec G203 -- built from numbers and escaped names
	d.Cost = template.HTML(p.costChart())   // #nosec G203
	d.Parts = template.HTML(p.partsChart()) // #nosec G203
	d.LoadNote = fmt.Sprintf("Each hour's highest RU/s (%d hours of the load shape), stacked by pattern; lines: manual %d RU/s, autoscale max %d RU/s.",
		len(p.HourlyRUs), p.Manual.RUs, p.Autoscale.MaxRUs)
	d.PartsNote = fmt.Sprintf("%d physical partitions, each serving an even share of the peak (%.0f RU/s) against its share of the %s throughput (%.0f RU/s).",
		p.Partitions, p.PeakRUs/float64(p.Partitions), p.Workload.Mode, p.PerPartitionRUs)
	return d
}

const chartW, chartH, padL, padB, padT = 720.0, 260.0, 60.0, 30.0, 20.0

// axis returns a y axis with a few ticks up to top (rounded to a nice number) and the nice top.
func axis(top float64) (string, float64) {
	if !(top > 0) {
		top = 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(top)))
	nice := math.Ceil(top/mag) * mag
	var b strings.Builder
	for i := 0; i <= 4; i++ {
		v := nice * float64(i) / 4
		y := chartH - padB - (chartH-padB-padT)*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.0f" y="%.1f" text-anchor="end" font-size="11">%s</text>`,
			padL, chartW-10, y, y, padL-4, y+4, short(v))
	}
	return b.String(), nice
}

// short prints v compactly (1.5k, 2M).
func short(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%gM", math.Round(v/1e5)/10)
	case v >= 1e3:
		return fmt.Sprintf("%gk", math.Round(v/1e2)/10)
	}
	return fmt.Sprintf("%g", math.Round(v*100)/100)
}

func yOf(v, top float64) float64 { return chartH - padB - (chartH-padB-padT)*v/top }

func (p *Plan) loadChart() string {
	var b strings.Builder
	top := math.Max(p.PeakRUs, float64(max(p.Manual.RUs, p.Autoscale.MaxRUs)))
	grid, top := axis(top)
	fmt.Fprintf(&b, `<svg id="chart-load" role="img" aria-label="RU/s per pattern over the load shape" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f">`, chartW, chartH, chartW, chartH)
	b.WriteString(grid)
	n := len(p.HourlyRUs)
	slot := (chartW - padL - 10) / float64(max(n, 1))
	shape := p.Workload.LoadShape
	for h := range n {
		level := 1.0
		if shape != nil {
			level = shape[h]
		}
		base := 0.0
		for i, pp := range p.Patterns {
			v := pp.PeakRUs * level
			y0, y1 := yOf(base, top), yOf(base+v, top)
			fmt.Fprintf(&b, `<rect class="load" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>hour %d: %s %.0f RU/s</title></rect>`,
				padL+float64(h)*slot+1, y1, math.Max(slot-2, 1), math.Max(y0-y1, 0), palette[i%len(palette)], h, template.HTMLEscapeString(pp.Name), v)
			base += v
		}
	}
	for _, l := range []struct {
		v     float64
		label string
		dash  string
	}{{float64(p.Manual.RUs), "manual", ""}, {float64(p.Autoscale.MaxRUs), "autoscale max", "6 4"}} {
		y := yOf(l.v, top)
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#000" stroke-dasharray="%s"/><text x="%.0f" y="%.1f" font-size="11" text-anchor="end">%s %s</text>`,
			padL, chartW-10, y, y, l.dash, chartW-12, y-3, l.label, short(l.v))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="11" text-anchor="middle">hour</text>`, (chartW+padL)/2, chartH-8)
	// Legend.
	for i, pp := range p.Patterns {
		fmt.Fprintf(&b, `<rect x="%.0f" y="4" width="10" height="10" fill="%s"/><text x="%.0f" y="13" font-size="11">%s</text>`,
			padL+float64(i)*130, palette[i%len(palette)], padL+float64(i)*130+14, template.HTMLEscapeString(pp.Name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func (p *Plan) costChart() string {
	modes := []struct {
		m     Mode
		cost  float64
		ok    bool
		color string
	}{
		{Manual, p.modeCost(Manual), true, "#1f77b4"},
		{Autoscale, p.modeCost(Autoscale), true, "#ff7f0e"},
		{Serverless, p.modeCost(Serverless), p.Serverless.Available, "#2ca02c"},
	}
	top := 0.0
	for _, m := range modes {
		top = math.Max(top, m.cost)
	}
	grid, top := axis(top)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="chart-cost" role="img" aria-label="monthly cost by mode" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f">`, chartW, chartH, chartW, chartH)
	b.WriteString(`<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#cfe8cf"/><line x1="0" y1="0" x2="0" y2="8" stroke="#2ca02c" stroke-width="3"/></pattern></defs>`)
	b.WriteString(grid)
	slot := (chartW - padL - 10) / 3
	for i, m := range modes {
		x := padL + float64(i)*slot + slot*0.2
		y := yOf(m.cost, top)
		fill, note := m.color, ""
		if !m.ok {
			fill, note = "url(#hatch)", " (not available)"
		}
		if m.m == p.Recommended {
			note += " ★ recommended"
		}
		fmt.Fprintf(&b, `<rect id="cost-%s" class="cost" data-cost="%.2f" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %.2f %s a month</title></rect>`,
			m.m, m.cost, x, y, slot*0.6, chartH-padB-y, fill, m.m, m.cost, template.HTMLEscapeString(p.Workload.Prices.Currency))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="12" text-anchor="middle">%.2f</text>`, x+slot*0.3, y-4, m.cost)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" font-size="12" text-anchor="middle">%s%s</text>`, x+slot*0.3, chartH-10, m.m, note)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func (p *Plan) partsChart() string {
	share := p.PeakRUs / float64(p.Partitions)
	grid, top := axis(math.Max(share, p.PerPartitionRUs))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="chart-partitions" role="img" aria-label="physical partitions and headroom" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f">`, chartW, chartH, chartW, chartH)
	b.WriteString(grid)
	shown := min(p.Partitions, 64) // a bar per partition up to 64; beyond, the first 64 stand for all
	slot := (chartW - padL - 10) / float64(shown)
	for i := range shown {
		x := padL + float64(i)*slot + slot*0.15
		yp, yu := yOf(p.PerPartitionRUs, top), yOf(share, top)
		fmt.Fprintf(&b, `<rect class="partition" data-peak="%.2f" data-provisioned="%.2f" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#e0e0e0" stroke="#9467bd"><title>partition %d: %.0f of %.0f RU/s at peak</title></rect>`,
			share, p.PerPartitionRUs, x, yp, slot*0.7, chartH-padB-yp, i, share, p.PerPartitionRUs)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#9467bd"/>`, x, yu, slot*0.7, math.Max(chartH-padB-yu, 0))
	}
	headroom := 0.0
	if p.PerPartitionRUs > 0 {
		headroom = 100 * (1 - share/p.PerPartitionRUs)
	}
	fmt.Fprintf(&b, `<text id="headroom" x="%.0f" y="14" font-size="12">headroom per partition: %.0f%%</text>`, padL, headroom)
	b.WriteString(`</svg>`)
	return b.String()
}

var htmlPage = template.Must(template.New("plan").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:980px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}
td.n{text-align:right}figure{margin:1.5em 0}figcaption{font-size:90%;color:#555}svg{max-width:100%;height:auto}
</style></head><body>
<h1>{{.Title}}</h1>
<h2>Summary</h2>
<table id="summary">{{range .Summary}}<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>{{end}}</table>
<h2>Access patterns</h2>
<table id="patterns"><tr><th>Pattern</th><th>Kind</th><th>RU/op</th><th>Source</th><th>Model</th><th>Peak RU/s</th><th>Avg RU/s</th></tr>
{{range .Patterns}}<tr><td>{{.Name}}</td><td>{{.Kind}}</td><td class="n">{{printf "%.2f" .RU}}</td><td>{{.Source}}</td><td class="n">{{printf "%.2f" .ModelRU}}</td><td class="n">{{printf "%.2f" .PeakRUs}}</td><td class="n">{{printf "%.2f" .AverageRUs}}</td></tr>
{{end}}</table>
<h2>Load over the day</h2>
<figure>{{.Load}}<figcaption>{{.LoadNote}}</figcaption></figure>
<h2>Monthly cost by mode ({{.Currency}})</h2>
<figure>{{.Cost}}<figcaption>Throughput and storage a month, each mode priced as documented in package capacity.</figcaption></figure>
<h2>Partitions and headroom</h2>
<figure>{{.Parts}}<figcaption>{{.PartsNote}}</figcaption></figure>
{{if .Warnings}}<h2>Warnings</h2><ul id="warnings">{{range .Warnings}}<li><b>{{.Code}}</b>{{if .Pattern}} ({{.Pattern}}){{end}}: {{.Message}}</li>{{end}}</ul>{{end}}
</body></html>
`))
