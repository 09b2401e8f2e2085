package capacity

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Table returns the plan as aligned plain text. It has one row per pattern (RU per operation,
// where it comes from, the model's, declared and measured figures, RU/s at peak and on average),
// then the totals, the throughput of both modes, the partitions, the monthly cost and the warnings.
func (p *Plan) Table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "pattern\tkind\tRU/op\tsource\tmodel\tdeclared\tmeasured\tpeak RU/s\tavg RU/s")
	for _, pp := range p.Patterns {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%.2f\t%s\t%s\t%.2f\t%.2f\n", pp.Name, pp.Kind, pp.RU, pp.Source, pp.ModelRU,
			orDash(pp.DeclaredRU), orDash(pp.MeasuredRU), pp.PeakRUs, pp.AverageRUs)
	}
	_, _ = fmt.Fprintf(tw, "total\t\t\t\t\t\t\t%.2f\t%.2f\n", p.PeakRUs, p.AverageRUs)
	_ = tw.Flush()
	b.WriteString("\n")
	for _, kv := range p.summary() {
		fmt.Fprintf(&b, "%-28s %s\n", kv[0]+":", kv[1])
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// Markdown returns the plan as Markdown: a table of the patterns, a table of the totals, and the
// warnings as a list.
func (p *Plan) Markdown() string {
	var b strings.Builder
	b.WriteString("| Pattern | Kind | RU/op | Source | Model | Declared | Measured | Peak RU/s | Avg RU/s |\n")
	b.WriteString("|---|---|--:|---|--:|--:|--:|--:|--:|\n")
	for _, pp := range p.Patterns {
		fmt.Fprintf(&b, "| %s | %s | %.2f | %s | %.2f | %s | %s | %.2f | %.2f |\n", mdEscape(pp.Name), pp.Kind, pp.RU, pp.Source,
			pp.ModelRU, orDash(pp.DeclaredRU), orDash(pp.MeasuredRU), pp.PeakRUs, pp.AverageRUs)
	}
	fmt.Fprintf(&b, "| **Total** | | | | | | | **%.2f** | **%.2f** |\n\n", p.PeakRUs, p.AverageRUs)
	b.WriteString("| | |\n|---|--:|\n")
	for _, kv := range p.summary() {
		fmt.Fprintf(&b, "| %s | %s |\n", kv[0], kv[1])
	}
	if len(p.Warnings) > 0 {
		b.WriteString("\nWarnings:\n\n")
		for _, w := range p.Warnings {
			msg := w.Message
			if w.Pattern != "" {
				msg = "(" + w.Pattern + ") " + msg
			}
			fmt.Fprintf(&b, "- **%s** %s\n", w.Code, mdEscape(msg))
		}
	}
	return b.String()
}

func (p *Plan) summary() [][2]string {
	w := p.Workload
	cur := w.Prices.Currency
	zone := "no"
	if w.ZoneRedundant {
		zone = "yes"
	}
	writes := "single-region"
	if w.MultiRegionWrites {
		writes = "multi-region"
	}
	serverless := fmt.Sprintf("up to %d RU/s, %.1f M RU, %.2f %s/month", p.Serverless.MaxRUs, p.Serverless.MonthlyRU/1e6, p.Serverless.MonthlyCost, cur)
	if !p.Serverless.Available {
		serverless += " (not available: " + strings.Join(p.Serverless.Reasons, "; ") + ")"
	}
	return [][2]string{
		{"Data", fmt.Sprintf("%g GB + %g GB index = %g GB", w.DataGB, round2(p.IndexGB), round2(p.StorageGB))},
		{"Regions", fmt.Sprintf("%d (zone redundant: %s, %s writes)", w.Regions, zone, writes)},
		{"Physical partitions", fmt.Sprintf("%d (storage %d, throughput %d)", p.Partitions, p.PartitionsForStorage, p.PartitionsForThroughput)},
		{"Manual throughput", fmt.Sprintf("%d RU/s (floor %d), %.2f %s/month", p.Manual.RUs, p.Manual.FloorRUs, p.Manual.MonthlyCost, cur)},
		{"Autoscale throughput", fmt.Sprintf("max %d RU/s (floor %d), %.2f %s/month hour by hour, %.2f at peak", p.Autoscale.MaxRUs, p.Autoscale.FloorRUs, p.Autoscale.MonthlyCost, cur, p.Autoscale.MonthlyCostAtPeak)},
		{"Serverless", serverless},
		{"Mode", fmt.Sprintf("%s: %d RU/s, %.2f RU/s per partition", w.Mode, p.ProvisionedRUs, p.PerPartitionRUs)},
		{"Throughput cost", fmt.Sprintf("%.2f %s/month", p.ThroughputMonthly, cur)},
		{"Storage cost", fmt.Sprintf("%.2f %s/month", p.StorageMonthly, cur)},
		{"Total", fmt.Sprintf("%.2f %s/month", p.TotalMonthly, cur)},
		{"Recommended", fmt.Sprintf("%s: %s", p.Recommended, p.Why)},
	}
}

func orDash(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
