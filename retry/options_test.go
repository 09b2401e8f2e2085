package retry_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cosmoskit/cosmoskit-go/retry"
)

func TestPipelinePolicyOptions(t *testing.T) {
	rep := &reporter{}
	clock := newFakeClock()
	defaults := retry.Options{
		Throttle: retry.ThrottleOptions{MaxRetries: retry.DefaultThrottleMaxRetries,
			MaxWait: retry.DefaultThrottleMaxWait, DefaultRetryAfter: retry.DefaultThrottleRetryAfter},
		Breaker: retry.BreakerOptions{ReadFailureThreshold: retry.DefaultReadFailureThreshold,
			WriteFailureThreshold: retry.DefaultWriteFailureThreshold, OpenInterval: retry.DefaultOpenInterval,
			HalfOpenProbes: 1},
		SessionRetry: retry.BackoffOptions{MaxWait: retry.DefaultSessionRetryMaxWait, InitialBackoff: retry.DefaultSessionRetryInitialBackoff,
			MaxBackoff: retry.DefaultSessionRetryMaxBackoff, Multiplier: retry.DefaultSessionRetryMultiplier},
		RetryWith: retry.BackoffOptions{MaxWait: retry.DefaultRetryWithMaxWait, InitialBackoff: retry.DefaultRetryWithInitialBackoff,
			MaxBackoff: retry.DefaultRetryWithMaxBackoff, Multiplier: retry.DefaultRetryWithMultiplier},
		Hedging: retry.HedgingOptions{Threshold: retry.DefaultHedgeThreshold, Step: retry.DefaultHedgeStep},
		Clock:   retry.SystemClock{},
	}
	set := retry.Options{
		PreferredRegions: []string{"East US", "West US"},
		ExcludedRegions:  []string{"North Europe"},
		Throttle:         retry.ThrottleOptions{MaxRetries: 3, MaxWait: time.Second, DefaultRetryAfter: time.Millisecond},
		Breaker: retry.BreakerOptions{ReadFailureThreshold: 2, WriteFailureThreshold: 1,
			OpenInterval: time.Minute, HalfOpenProbes: 3, Disable: true},
		SessionRetry: retry.BackoffOptions{MaxWait: time.Second, InitialBackoff: time.Millisecond, MaxBackoff: 9 * time.Millisecond, Multiplier: 3},
		RetryWith:    retry.BackoffOptions{MaxWait: 2 * time.Second, InitialBackoff: 2 * time.Millisecond, MaxBackoff: 8 * time.Millisecond, Multiplier: 1.5, Disable: true},
		Hedging:      retry.HedgingOptions{Enable: true, Threshold: time.Millisecond, Step: 2 * time.Millisecond, Writes: true},
		Reporter:     rep,
		Clock:        clock,
	}
	disabled := defaults
	disabled.Throttle.MaxRetries = 0
	disabled.Throttle.DisableRetries = true
	tests := []struct {
		name string
		in   retry.Options
		want retry.Options
	}{
		{"zero", retry.Options{}, defaults},
		{"negative", retry.Options{
			Throttle: retry.ThrottleOptions{MaxRetries: -1, DefaultRetryAfter: -1},
			Breaker:  retry.BreakerOptions{ReadFailureThreshold: -1, WriteFailureThreshold: -1, OpenInterval: -1, HalfOpenProbes: -1},
			Hedging:  retry.HedgingOptions{Threshold: -1, Step: -1},
		}, disabled},
		{"negative budget", retry.Options{Throttle: retry.ThrottleOptions{MaxWait: -1}}, disabled},
		{"disabled", retry.Options{Throttle: retry.ThrottleOptions{DisableRetries: true, MaxRetries: 4}}, disabled},
		{"set", set, set},
	}
	cmpOpts := cmp.Comparer(func(a, b retry.StateReporter) bool { return a == b })
	clockOpt := cmp.Comparer(func(a, b retry.Clock) bool { return a == b })
	for _, tt := range tests {
		p := retry.NewPipelinePolicy(tt.in)
		got := p.Options()
		if diff := cmp.Diff(tt.want, got, cmpOpts, clockOpt); diff != "" {
			t.Errorf("%s: Options() (-want +got):\n%s", tt.name, diff)
		}
		again := retry.NewPipelinePolicy(got).Options()
		if diff := cmp.Diff(got, again, cmpOpts, clockOpt); diff != "" {
			t.Errorf("%s: NewPipelinePolicy(p.Options()).Options() differs (-first +second):\n%s", tt.name, diff)
		}
	}

	// The slices are copies, and ExcludedRegions follow SetExcludedRegions.
	in := retry.Options{PreferredRegions: []string{"East US"}, ExcludedRegions: []string{"West US"}}
	p := retry.NewPipelinePolicy(in)
	in.PreferredRegions[0] = "changed"
	got := p.Options()
	got.PreferredRegions[0], got.ExcludedRegions[0] = "changed", "changed"
	if again := p.Options(); again.PreferredRegions[0] != "East US" || again.ExcludedRegions[0] != "West US" {
		t.Errorf("Options() shares its slices: %+v", again)
	}
	p.SetExcludedRegions("East US", "North Europe")
	if diff := cmp.Diff([]string{"East US", "North Europe"}, p.Options().ExcludedRegions); diff != "" {
		t.Errorf("ExcludedRegions after SetExcludedRegions (-want +got):\n%s", diff)
	}
}
