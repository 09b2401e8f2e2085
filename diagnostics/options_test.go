package diagnostics_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
)

// mustPolicy returns the policy configured by o, failing the test on a refusal.
func mustPolicy(t testing.TB, o diagnostics.Options) *diagnostics.Policy {
	t.Helper()
	p, err := diagnostics.NewPolicy(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNewPolicyRefusesBadOptions: negative thresholds are refused with a ValidationError naming
// the option, never turned into defaults; Options reads the thresholds in effect back.
func TestNewPolicyRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		opts  diagnostics.Options
		field string
	}{
		{diagnostics.Options{PointLatencyThreshold: -time.Second}, "Options.PointLatencyThreshold"},
		{diagnostics.Options{NonPointLatencyThreshold: -1}, "Options.NonPointLatencyThreshold"},
		{diagnostics.Options{RequestChargeThreshold: -1}, "Options.RequestChargeThreshold"},
		{diagnostics.Options{RequestChargeThreshold: math.NaN()}, "Options.RequestChargeThreshold"},
		{diagnostics.Options{Scan: diagnostics.ScanOptions{MinRetrieved: -1}}, "Options.Scan.MinRetrieved"},
		{diagnostics.Options{Scan: diagnostics.ScanOptions{Ratio: math.NaN()}}, "Options.Scan.Ratio"},
		{diagnostics.Options{Scan: diagnostics.ScanOptions{MaxShapes: -1}}, "Options.Scan.MaxShapes"},
	} {
		p, err := diagnostics.NewPolicy(tc.opts)
		var ve *cosmoserr.ValidationError
		if p != nil || !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("NewPolicy(%+v) = %v, %v; want a ValidationError for %s", tc.opts, p, err, tc.field)
		}
	}
	got := mustPolicy(t, diagnostics.Options{}).Options()
	if got.PointLatencyThreshold != diagnostics.DefaultPointLatencyThreshold || got.NonPointLatencyThreshold != diagnostics.DefaultNonPointLatencyThreshold {
		t.Errorf("Options() = %+v, want the default thresholds filled in", got)
	}
	if got := mustPolicy(t, diagnostics.Options{PointLatencyThreshold: time.Millisecond}).Options(); got.PointLatencyThreshold != time.Millisecond {
		t.Errorf("Options().PointLatencyThreshold = %v", got.PointLatencyThreshold)
	}
}

// TestPartitionTrackerOptions: a negative MaxKeys is refused; Options reads the default back.
func TestPartitionTrackerOptions(t *testing.T) {
	if tr, err := diagnostics.NewPartitionTracker(diagnostics.TrackerOptions{MaxKeys: -1}); tr != nil || !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("NewPartitionTracker(MaxKeys: -1) = %v, %v", tr, err)
	}
	tr, err := diagnostics.NewPartitionTracker(diagnostics.TrackerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Options().MaxKeys; got != diagnostics.DefaultMaxKeys {
		t.Fatalf("Options().MaxKeys = %d, want %d", got, diagnostics.DefaultMaxKeys)
	}
}
