// Command cosmosplan reads a workload file (JSON) and prints its capacity and cost plan (package
// capacity) as a table or as Markdown:
//
//	go run ./cmd/cosmosplan workload.example.json
//	go run ./cmd/cosmosplan -format markdown workload.example.json > plan.md
//
// The file is a capacity.Workload in JSON; field names match the Go names, case-insensitively, and
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
	format := fs.String("format", "table", "output format: table or markdown")
	fs.Usage = func() {
		_, _ = fmt.Fprintln(stderr, "usage: cosmosplan [-format table|markdown] workload.json  (- reads standard input)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || (*format != "table" && *format != "markdown") {
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
	text := plan.Table()
	if *format == "markdown" {
		text = plan.Markdown()
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		_, _ = fmt.Fprintln(stderr, "cosmosplan:", err)
		return 1
	}
	return 0
}

// parseWorkload decodes a workload file, refusing unknown fields and trailing data.
func parseWorkload(data []byte) (capacity.Workload, error) {
	var w capacity.Workload
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return w, fmt.Errorf("workload file: %w", err)
	}
	if dec.More() {
		return w, errors.New("workload file: data after the workload object")
	}
	return w, nil
}
