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
	p, err := changefeed.New("proc", "a", e.monitored, changefeed.Leases(e.leases), nop, changefeed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := p.Options()
	if o.PollInterval != 5*time.Second || o.LeaseRenewInterval != 17*time.Second || o.LeaseAcquireInterval != 13*time.Second ||
		o.LeaseExpirationInterval != 60*time.Second || o.MaxItems != 100 || !o.StartFrom.IsNow() ||
		o.RetryBackoff != time.Second || o.MaxRetryBackoff != 30*time.Second || o.Logger == nil {
		t.Errorf("defaults not in effect: %+v", o)
	}
	f := fast()
	p, err = changefeed.New("proc", "a", e.monitored, changefeed.Leases(e.leases), nop, f)
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
}

func TestValidation(t *testing.T) {
	e := newEnv(t, 1)
	lc := changefeed.Leases(e.leases)
	cases := []struct {
		field string
		make  func() error
	}{
		{"name", func() error {
			_, err := changefeed.New("", "a", e.monitored, lc, nop, changefeed.Options{})
			return err
		}},
		{"name", func() error {
			_, err := changefeed.New("a/b", "a", e.monitored, lc, nop, changefeed.Options{})
			return err
		}},
		{"instance", func() error {
			_, err := changefeed.New("p", "", e.monitored, lc, nop, changefeed.Options{})
			return err
		}},
		{"monitored", func() error { _, err := changefeed.New("p", "a", nil, lc, nop, changefeed.Options{}); return err }},
		{"leases", func() error {
			_, err := changefeed.New("p", "a", e.monitored, changefeed.LeaseContainer{}, nop, changefeed.Options{})
			return err
		}},
		{"handler", func() error {
			_, err := changefeed.New("p", "a", e.monitored, lc, nil, changefeed.Options{})
			return err
		}},
		{"Options.LeaseExpirationInterval", func() error {
			_, err := changefeed.New("p", "a", e.monitored, lc, nop, changefeed.Options{LeaseRenewInterval: time.Minute, LeaseExpirationInterval: time.Second})
			return err
		}},
		{"Options.MinLeases", func() error {
			_, err := changefeed.New("p", "a", e.monitored, lc, nop, changefeed.Options{MinLeases: 3, MaxLeases: 2})
			return err
		}},
		{"Options.MaxDeliveries", func() error {
			_, err := changefeed.New("p", "a", e.monitored, lc, nop, changefeed.Options{MaxDeliveries: -1})
			return err
		}},
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
	p, err := changefeed.New("proc", "a", e.monitored, changefeed.Leases(e.monitored), nop, changefeed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ve *cosmoserr.ValidationError
	if err := p.Start(context.Background()); !errors.As(err, &ve) || ve.Field != "leases" {
		t.Fatalf("Start with a lease container partitioned by /pk: %v", err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Error(err)
	}
}
