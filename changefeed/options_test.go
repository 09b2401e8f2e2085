package changefeed_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

func nop(context.Context, changefeed.Batch) error { return nil }

func TestOptionsInEffect(t *testing.T) {
	e := newEnv(t, 1)
	p, err := changefeed.New(e.monitored, withLeases(e, "a", nop, changefeed.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	o := p.Options()
	if o.PollInterval != 5*time.Second || o.LeaseRenewInterval != 17*time.Second || o.LeaseAcquireInterval != 13*time.Second ||
		o.LeaseExpirationInterval != 60*time.Second || o.MaxItems != 100 || !o.StartFrom.IsNow() ||
		o.RetryBackoff != time.Second || o.MaxRetryBackoff != 30*time.Second || o.Logger == nil ||
		o.Name != "proc" || o.Instance != "a" || o.Handler == nil {
		t.Errorf("defaults not in effect: %+v", o)
	}
	f := fast()
	p, err = changefeed.New(e.monitored, withLeases(e, "a", nop, f))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Options(); got.PollInterval != f.PollInterval || !got.StartFrom.IsBeginning() || got.StartFrom.String() != "beginning" {
		t.Errorf("options not kept: %+v", got)
	}
	// Stop before Start, and twice, is harmless; Start twice is an error.
	if err := p.Stop(context.Background()); err != nil {
		t.Error(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); !errors.Is(err, cosmoserr.ErrStarted) {
		t.Errorf("second Start: %v", err)
	}
	stop(t, p)
	stop(t, p)
	est, err := changefeed.NewEstimator(e.monitored, changefeed.EstimatorOptions{Name: "proc", Leases: changefeed.Leases(e.leases)})
	if err != nil {
		t.Fatal(err)
	}
	if eo := est.Options(); eo.Name != "proc" || !eo.StartFrom.IsNow() {
		t.Errorf("estimator options: %+v", eo)
	}
}

func TestValidation(t *testing.T) {
	e := newEnv(t, 1)
	lc := changefeed.Leases(e.leases)
	valid := func() changefeed.Options {
		return changefeed.Options{Name: "p", Instance: "a", Leases: lc, Handler: nop}
	}
	proc := func(mut func(*changefeed.Options)) func() error {
		return func() error {
			o := valid()
			mut(&o)
			_, err := changefeed.New(e.monitored, o)
			return err
		}
	}
	est := func(o changefeed.EstimatorOptions) func() error {
		return func() error { _, err := changefeed.NewEstimator(e.monitored, o); return err }
	}
	cases := []struct {
		field string
		make  func() error
	}{
		{"Options.Name", proc(func(o *changefeed.Options) { o.Name = "" })},
		{"Options.Name", proc(func(o *changefeed.Options) { o.Name = "a/b" })},
		{"Options.Instance", proc(func(o *changefeed.Options) { o.Instance = "" })},
		{"monitored", func() error { _, err := changefeed.New(nil, valid()); return err }},
		{"Options.Leases", proc(func(o *changefeed.Options) { o.Leases = changefeed.LeaseContainer{} })},
		{"Options.Handler", proc(func(o *changefeed.Options) { o.Handler = nil })},
		{"Options.LeaseExpirationInterval", proc(func(o *changefeed.Options) {
			o.LeaseRenewInterval, o.LeaseExpirationInterval = time.Minute, time.Second
		})},
		{"Options.MinLeases", proc(func(o *changefeed.Options) { o.MinLeases, o.MaxLeases = 3, 2 })},
		{"Options.MaxDeliveries", proc(func(o *changefeed.Options) { o.MaxDeliveries = -1 })},
		// Not a host name: the lease ids would not be .NET's "{Name}{host}_..", and could be another
		// processor's.
		{"Options.AccountHost", proc(func(o *changefeed.Options) { o.AccountHost = "acct.example_x" })},
		{"Options.AccountHost", proc(func(o *changefeed.Options) { o.AccountHost = "acct..example" })},
		{"Options.AccountHost", proc(func(o *changefeed.Options) { o.AccountHost = "-acct.example" })},
		{"Options.AccountHost", proc(func(o *changefeed.Options) { o.AccountHost = "acct.example/x" })},
		{"Options.AccountHost", proc(func(o *changefeed.Options) { o.AccountHost = "https://acct.example" })},
		{"monitored", func() error {
			_, err := changefeed.NewEstimator(nil, changefeed.EstimatorOptions{Name: "p", Leases: lc})
			return err
		}},
		{"Options.Name", est(changefeed.EstimatorOptions{Leases: lc})},
		{"Options.AccountHost", est(changefeed.EstimatorOptions{Name: "p", Leases: lc, AccountHost: "a_b.example"})},
		{"Options.Leases", est(changefeed.EstimatorOptions{Name: "p"})},
	}
	for _, host := range []string{"myaccount.documents.azure.com", "myaccount-westus.documents.azure.com", "127.0.0.1", "::1", "localhost"} {
		if err := proc(func(o *changefeed.Options) { o.AccountHost = host })(); err != nil {
			t.Errorf("AccountHost %q: %v", host, err)
		}
	}
	for _, c := range cases {
		err := c.make()
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field || !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%s: got %v", c.field, err)
		}
	}
}

// A ready lease container must be partitioned by /id: Start says so before writing anything.
func TestLeaseContainerPartitionKey(t *testing.T) {
	e := newEnv(t, 1)
	o := withLeases(e, "a", nop, changefeed.Options{})
	o.Leases = changefeed.Leases(e.monitored)
	p, err := changefeed.New(e.monitored, o)
	if err != nil {
		t.Fatal(err)
	}
	var ve *cosmoserr.ValidationError
	if err := p.Start(context.Background()); !errors.As(err, &ve) || ve.Field != "Options.Leases" {
		t.Fatalf("Start with a lease container partitioned by /pk: %v", err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Error(err)
	}
}
