package crosspartition

import (
	"errors"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// TestNewRefusesBadOptions: New refuses a nil container and negative options with a
// *cosmoserr.ValidationError naming the field, instead of turning them into defaults; the zero
// value reads back as the documented defaults.
func TestNewRefusesBadOptions(t *testing.T) {
	_, c := newContainer(t, 1, nil)
	for _, tc := range []struct {
		name  string
		opts  Options
		field string
	}{
		{"negative concurrency", Options{MaxConcurrency: -1}, "Options.MaxConcurrency"},
		{"negative non-streaming cap", Options{MaxNonStreamingItems: -5}, "Options.MaxNonStreamingItems"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := New(c, tc.opts)
			var ve *cosmoserr.ValidationError
			if x != nil || !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, cosmoserr.ErrValidation) {
				t.Fatalf("New = %v, %v; want a ValidationError for %s", x, err, tc.field)
			}
		})
	}
	if _, err := New(nil, Options{}); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("New(nil) = %v, want ErrValidation", err)
	}
	x, err := New(c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := x.Options(); got.MaxConcurrency != DefaultMaxConcurrency || got.MaxNonStreamingItems != DefaultMaxNonStreamingItems {
		t.Fatalf("Options() = %+v, want the defaults filled in", got)
	}
	x, err = New(c, Options{MaxConcurrency: 2, MaxNonStreamingItems: 10})
	if err != nil || x.Options().MaxConcurrency != 2 || x.Options().MaxNonStreamingItems != 10 {
		t.Fatalf("New(explicit) = %+v, %v", x.Options(), err)
	}
}
