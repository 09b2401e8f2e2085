package retry_test

import (
	"errors"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/google/go-cmp/cmp"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
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
		SessionRetry: retry.BackoffOptions{InitialBackoff: retry.DefaultSessionRetryInitialBackoff,
			MaxBackoff: retry.DefaultSessionRetryMaxBackoff, Multiplier: retry.DefaultSessionRetryMultiplier},
		RetryWith: retry.BackoffOptions{MaxWait: retry.DefaultRetryWithMaxWait, InitialBackoff: retry.DefaultRetryWithInitialBackoff,
			MaxBackoff: retry.DefaultRetryWithMaxBackoff, Multiplier: retry.DefaultRetryWithMultiplier},
		Hedging: retry.HedgingOptions{Threshold: retry.DefaultHedgeThreshold, Step: retry.DefaultHedgeStep},
		Clock:   retry.SystemClock{},
	}
	set := retry.Options{
		Throttle: retry.ThrottleOptions{MaxRetries: 3, MaxWait: time.Second, DefaultRetryAfter: time.Millisecond},
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
	disabled.Throttle.Disable = true
	tests := []struct {
		name string
		in   retry.Options
		want retry.Options
	}{
		{"zero", retry.Options{}, defaults},
		{"disabled", retry.Options{Throttle: retry.ThrottleOptions{Disable: true, MaxRetries: 4}}, disabled},
		{"set", set, set},
	}
	cmpOpts := cmp.Comparer(func(a, b retry.StateReporter) bool { return a == b })
	clockOpt := cmp.Comparer(func(a, b retry.Clock) bool { return a == b })
	for _, tt := range tests {
		p := mustPolicy(t, tt.in)
		got := p.Options()
		if diff := cmp.Diff(tt.want, got, cmpOpts, clockOpt); diff != "" {
			t.Errorf("%s: Options() (-want +got):\n%s", tt.name, diff)
		}
		again := mustPolicy(t, got).Options()
		if diff := cmp.Diff(got, again, cmpOpts, clockOpt); diff != "" {
			t.Errorf("%s: NewPipelinePolicy(p.Options()).Options() differs (-first +second):\n%s", tt.name, diff)
		}
	}

	// The regions are read back from the policy: PreferredRegions are the client options' at
	// Install (copies), ExcludedRegions follow SetExcludedRegions.
	p := mustPolicy(t, retry.Options{})
	if got := p.PreferredRegions(); got != nil {
		t.Errorf("PreferredRegions before Install = %v, want none", got)
	}
	co := &azcosmos.ClientOptions{PreferredRegions: []string{"East US", "West US"}}
	p.Install(co)
	co.PreferredRegions[0] = "changed"
	got := p.PreferredRegions()
	got[1] = "changed"
	if diff := cmp.Diff([]string{"East US", "West US"}, p.PreferredRegions()); diff != "" {
		t.Errorf("PreferredRegions after Install (-want +got):\n%s", diff)
	}
	p.SetExcludedRegions("East US", "North Europe")
	if diff := cmp.Diff([]string{"East US", "North Europe"}, p.ExcludedRegions()); diff != "" {
		t.Errorf("ExcludedRegions after SetExcludedRegions (-want +got):\n%s", diff)
	}
}

// TestPipelinePolicyRefusesBadOptions: negative counts and durations were silently turned into
// defaults (or "off"); now NewPipelinePolicy refuses them, naming the field.
func TestPipelinePolicyRefusesBadOptions(t *testing.T) {
	tests := []struct {
		field string
		o     retry.Options
	}{
		{"Options.Throttle.MaxRetries", retry.Options{Throttle: retry.ThrottleOptions{MaxRetries: -1}}},
		{"Options.Throttle.MaxWait", retry.Options{Throttle: retry.ThrottleOptions{MaxWait: -1}}},
		{"Options.Throttle.DefaultRetryAfter", retry.Options{Throttle: retry.ThrottleOptions{DefaultRetryAfter: -1}}},
		{"Options.Breaker.ReadFailureThreshold", retry.Options{Breaker: retry.BreakerOptions{ReadFailureThreshold: -1}}},
		{"Options.Breaker.WriteFailureThreshold", retry.Options{Breaker: retry.BreakerOptions{WriteFailureThreshold: -1}}},
		{"Options.Breaker.OpenInterval", retry.Options{Breaker: retry.BreakerOptions{OpenInterval: -1}}},
		{"Options.Breaker.HalfOpenProbes", retry.Options{Breaker: retry.BreakerOptions{HalfOpenProbes: -1}}},
		{"Options.Hedging.Threshold", retry.Options{Hedging: retry.HedgingOptions{Threshold: -1}}},
		{"Options.Hedging.Step", retry.Options{Hedging: retry.HedgingOptions{Step: -1}}},
		{"Options.SessionRetry.MaxWait", retry.Options{SessionRetry: retry.BackoffOptions{MaxWait: -1}}},
		{"Options.SessionRetry.Multiplier", retry.Options{SessionRetry: retry.BackoffOptions{Multiplier: 0.5}}},
		{"Options.RetryWith.InitialBackoff", retry.Options{RetryWith: retry.BackoffOptions{InitialBackoff: -1}}},
		{"Options.RetryWith.MaxBackoff", retry.Options{RetryWith: retry.BackoffOptions{MaxBackoff: -1}}},
	}
	for _, tt := range tests {
		p, err := retry.NewPipelinePolicy(tt.o)
		var ve *cosmoserr.ValidationError
		if p != nil || !errors.As(err, &ve) || ve.Field != tt.field || !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%s: NewPipelinePolicy = %v, %v; want a *cosmoserr.ValidationError naming the field", tt.field, p, err)
		}
	}
	if _, err := retry.NewPipelinePolicy(retry.Options{}); err != nil {
		t.Errorf("zero Options refused: %v", err)
	}
}

// TestDisabledPolicyPassesThrough: Options.Disable installs nothing.
func TestDisabledPolicyPassesThrough(t *testing.T) {
	p := mustPolicy(t, retry.Options{Disable: true})
	var co azcosmos.ClientOptions
	p.Install(&co)
	if len(co.PerRetryPolicies) != 0 || co.Retry.StatusCodes != nil {
		t.Errorf("a disabled policy changed the client options: %+v", co)
	}
	if !p.Options().Disable {
		t.Error("Options().Disable is false")
	}
}
