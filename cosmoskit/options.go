package cosmoskit

import (
	"crypto/tls"
	"errors"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/diagnostics"
	"github.com/cosmoskit/cosmoskit-go/retry"
)

// built is what clientOptions made besides the options: the policies the entry keeps.
type built struct {
	diag    *diagnostics.Policy   // nil when disabled
	retry   *retry.PipelinePolicy // nil when disabled
	session *consistency.Policy   // nil when disabled
	conns   ConnectionOptions     // in effect on the transport cosmoskit built (zero: not built)
}

// clientOptions builds the azcosmos options: a copy of the caller's base with cosmoskit's regions,
// user agent, diagnostics, session and retry policies, the caller's policies, and the transport.
// Per-call order: diagnostics, base, Config, session container. Per-retry order: retry,
// diagnostics attempt, base, Config, host pinning.
func (r *resolved) clientOptions() (*azcosmos.ClientOptions, built, error) {
	var b built
	var o azcosmos.ClientOptions
	if r.base != nil {
		o = *r.base
	}
	o.PreferredRegions = slices.Clone(r.preferred)
	if r.appName != "" {
		o.Telemetry.ApplicationID = r.appName
	}
	var diagCall, diagRetry []policy.Policy
	if !r.cfg.Diagnostics.Disable {
		do := r.cfg.Diagnostics
		if do.Logger == nil {
			do.Logger = r.logger // failures once each, and slow or expensive calls
		}
		var err error
		if b.diag, err = diagnostics.NewPolicy(do); err != nil {
			return nil, b, subOptionError("Diagnostics", err)
		}
		diagCall = []policy.Policy{b.diag}
		diagRetry = []policy.Policy{diagnostics.NewAttemptPolicy()}
		if tp := r.cfg.Diagnostics.TracerProvider; tp != nil && !o.TracingProvider.NewTracer("cosmoskit", "").Enabled() {
			o.TracingProvider = diagnostics.TracingProvider(tp)
		}
	}
	var sessionCall []policy.Policy
	if !r.cfg.Session.Disable {
		// Last among the per-call policies, so that a token or level a caller's policy sets wins.
		var err error
		if b.session, err = consistency.NewPolicy(r.cfg.Session); err != nil {
			return nil, b, subOptionError("Session", err)
		}
		sessionCall = []policy.Policy{b.session}
	}
	o.PerCallPolicies = slices.Concat(diagCall, o.PerCallPolicies, r.cfg.PerCallPolicies, sessionCall)
	var pin []policy.Policy
	if r.cfg.DisableEndpointDiscovery {
		pin = []policy.Policy{pinHostPolicy{host: r.ep.hostport}}
	}
	o.PerRetryPolicies = slices.Concat(diagRetry, o.PerRetryPolicies, r.cfg.PerRetryPolicies, pin)
	if o.Transport == nil {
		// cosmoskit's transport: azcosmos's default settings, connections per host capped.
		switch {
		case r.cert != nil:
			o.Transport = newPinnedClient(r.cert)
		case r.ep.loopback:
			o.Transport = newLoopbackTransport()
		default:
			o.Transport = newHTTPClient(&tls.Config{MinVersion: tls.VersionTLS12}, nil, true)
		}
		b.conns = r.cfg.Connections.withDefaults()
		limitConns(o.Transport, b.conns)
	}
	// The retry policy wraps the transport (its hedging sends from there): set it first.
	if !r.cfg.Retry.Disable {
		ro := r.cfg.Retry
		if ro.Reporter == nil && b.diag != nil {
			ro.Reporter = b.diag
		}
		// resolve has validated cfg.Retry, and the regions are checked.
		if p, err := retry.NewPipelinePolicy(ro); err == nil {
			b.retry = p
			b.retry.SetExcludedRegions(r.excluded...)
			b.retry.Install(&o) // first among the per-retry policies; routes by o.PreferredRegions; 429 leaves azcore's retried codes
		}
	}
	return &o, b, nil
}

// subOptionError reports a package's refusal of its options (a *cosmoserr.ValidationError naming
// "Options.X") as the Config field holding them ("Diagnostics.X").
func subOptionError(field string, err error) error {
	var ve *cosmoserr.ValidationError
	if errors.As(err, &ve) {
		return configError("Config."+field+"."+strings.TrimPrefix(ve.Field, "Options."), ve.Reason, nil)
	}
	return err
}

// checkSubOptions validates the options New hands to the diagnostics and session policies without
// building anything that outlives the call (no instruments, no tracer).
func checkSubOptions(cfg *Config) error {
	if !cfg.Diagnostics.Disable {
		d := cfg.Diagnostics
		d.TracerProvider, d.MeterProvider, d.Logger = nil, nil, nil
		if _, err := diagnostics.NewPolicy(d); err != nil {
			return subOptionError("Diagnostics", err)
		}
	}
	if !cfg.Session.Disable {
		if _, err := consistency.NewPolicy(cfg.Session); err != nil {
			return subOptionError("Session", err)
		}
	}
	return nil
}
