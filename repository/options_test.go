package repository_test

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/repository"
)

// TestOptionsReadBack: Options returns the options in effect, defaults filled in, and New refuses
// negative numbers with a ValidationError naming the option instead of defaulting them.
func TestOptionsReadBack(t *testing.T) {
	e := newEnv(t)
	got := newOrders(t, e.container).Options()
	if got.Type != "order" || got.SchemaVersion != 1 || got.LargeItemThreshold != repository.DefaultLargeItemThreshold ||
		got.UpdatePolicy.MaxAttempts != repository.DefaultUpdateAttempts || got.UpdatePolicy.InitialBackoff != 5*time.Millisecond ||
		got.UpdatePolicy.MaxBackoff != 100*time.Millisecond || got.UpdatePolicy.Retryable == nil || got.Logger == nil ||
		len(got.PartitionKeyPaths) != 1 {
		t.Fatalf("Options() = %+v, want the defaults filled in", got)
	}
	l := slog.New(slog.DiscardHandler)
	got = newOrders(t, e.container, func(o *repository.Options[Order]) { o.SchemaVersion = 3; o.Logger = l }).Options()
	if got.SchemaVersion != 3 || got.Logger != l {
		t.Fatalf("Options() = %+v, want the given values", got)
	}
	for field, edit := range map[string]func(*repository.Options[Order]){
		"Options.LargeItemThreshold":       func(o *repository.Options[Order]) { o.LargeItemThreshold = -1 },
		"Options.UnversionedAs":            func(o *repository.Options[Order]) { o.UnversionedAs = -1 },
		"Options.UpdatePolicy.MaxAttempts": func(o *repository.Options[Order]) { o.UpdatePolicy.MaxAttempts = -1 },
		"Options.UpdatePolicy":             func(o *repository.Options[Order]) { o.UpdatePolicy.MaxBackoff = -time.Second },
		"Options.SchemaVersion":            func(o *repository.Options[Order]) { o.SchemaVersion = -2 },
		"Options.Type":                     func(o *repository.Options[Order]) { o.Type = "a b" },
	} {
		opts := repository.Options[Order]{Type: "order", Key: orderKey}
		edit(&opts)
		_, err := repository.New(e.container, opts)
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || ve.Field != field || !errors.Is(err, cosmoserr.ErrValidation) {
			t.Errorf("%s: New = %v, want a ValidationError naming it", field, err)
		}
	}
}
