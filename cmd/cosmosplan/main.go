// Command cosmosplan prints the capacity and cost plan of a workload file: a table, Markdown, or an
// HTML page with charts.
//
//	go run ./cmd/cosmosplan workload.example.json
//	go run ./cmd/cosmosplan -format markdown workload.example.json > plan.md
//	go run ./cmd/cosmosplan -format html workload.spiky.json > plan.html   # a load shape, two regions
//
// The plan is package capacity's, and the HTML is one self-contained page. The file is a
// capacity.Workload in JSON; field names match the Go names, case-insensitively, and
// an unknown field is an error (a typo would otherwise silently use a default):
//
//	{
//	  "dataGB": 200,
//	  "regions": 1,
//	  "mode": "manual",
//	  "patterns": [
//	    {"name": "get-order", "kind": "read", "peakRPS": 500, "documentKB": 2},
//	    {"name": "orders-by-status", "kind": "query", "peakRPS": 5, "crossPartition": true}
//	  ],
//	  "prices": {"manualPer100RUsHour": 0.008}
//	}
//
// Modes: manual, autoscale, serverless (all three are priced whichever is chosen). "loadShape"
// takes 24 (or 168) hourly levels, each a share of the peak, for autoscale's hour-by-hour bill;
// "indexedProperties", "indexing" ("consistent" or "none") and "indexOverhead" shape the write
// charge and the index storage; "freeTier" and "prices" {"reservedDiscount": 0.2, ...} the bill.
//
// Kinds: read, create, upsert, replace, patch, delete, query. A pattern's "ru" declares its RU per
// operation and "measuredRU" gives a measured one (see capacity.Measure and
// examples/capacity-plan); otherwise the model's estimate is used. Exit status: 0, 1 for an
// unreadable file, 2 for a bad flag or workload (the message names the field).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cosmoskit/cosmoskit-go/capacity"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cosmosplan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "table", "output format: table, markdown or html")
	fs.Usage = func() {
		_, _ = fmt.Fprintln(stderr, "usage: cosmosplan [-format table|markdown|html] workload.json  (- reads standard input)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || (*format != "table" && *format != "markdown" && *format != "html") {
		fs.Usage()
		return 2
	}
	var data []byte
	var err error
	if name := fs.Arg(0); name == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "cosmosplan:", err)
		return 1
	}
	w, err := parseWorkload(data)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "cosmosplan:", err)
		return 2
	}
	plan, err := capacity.New(w)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "cosmosplan:", err)
		var ve *cosmoserr.ValidationError
		if errors.As(err, &ve) {
			return 2
		}
		return 1
	}
	var text string
	switch *format {
	case "markdown":
		text = plan.Markdown()
	case "html":
		text = plan.HTML()
	default:
		text = plan.Table()
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		_, _ = fmt.Fprintln(stderr, "cosmosplan:", err)
		return 1
	}
	return 0
}

// parseWorkload decodes a workload file, refusing unknown fields and trailing data. A syntax or
// type error names its line and column; an empty file says so.
func parseWorkload(data []byte) (capacity.Workload, error) {
	var w capacity.Workload
	if len(bytes.TrimSpace(data)) == 0 {
		return w, errors.New("workload file: empty; expected a JSON object such as {\"patterns\": [...]}")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line, col := position(data, se.Offset)
			return w, fmt.Errorf("workload file: line %d, column %d: %w", line, col, err)
		case errors.As(err, &te):
			line, col := position(data, te.Offset)
			return w, fmt.Errorf("workload file: line %d, column %d: %s must be %s", line, col, te.Field, te.Type)
		case errors.Is(err, io.ErrUnexpectedEOF):
			line, col := position(data, int64(len(data)))
			return w, fmt.Errorf("workload file: line %d, column %d: the JSON ends before the workload object does", line, col)
		}
		return w, fmt.Errorf("workload file: %w", err)
	}
	if dec.More() {
		line, col := position(data, dec.InputOffset())
		return w, fmt.Errorf("workload file: line %d, column %d: data after the workload object", line, col)
	}
	return w, nil
}

// position returns the 1-based line and column (in bytes) of offset in data; the decoder's
// offsets point just past the offending byte, so the column is that byte's.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n') - 1
	return line, max(col, 1)
}
