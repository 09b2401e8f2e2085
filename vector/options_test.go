package vector_test

import (
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/crosspartition"
	"github.com/cosmoskit/cosmoskit-go/vector"
)

// TestNewRefusesBadOptions: New refuses options that are neither zero nor usable with a
// *cosmoserr.ValidationError naming the option (no clamping, no silent default), and Options
// reads the defaults back.
func TestNewRefusesBadOptions(t *testing.T) {
	t.Parallel()
	c := newContainer(t, 1, vectorProps(azcosmos.VectorDistanceFunctionCosine, 4, azcosmos.VectorIndexTypeFlat))
	for _, tc := range []struct {
		name  string
		opts  vector.Options
		field string
	}{
		{"negative MaxK", vector.Options{MaxK: -1}, "Options.MaxK"},
		{"MaxK above the engine cap", vector.Options{MaxK: 20, CrossPartition: crosspartition.Options{MaxNonStreamingItems: 10}}, "Options.MaxK"},
		{"path", vector.Options{Path: "embedding"}, "Options.Path"},
		{"engine option", vector.Options{CrossPartition: crosspartition.Options{MaxConcurrency: -2}}, "Options.CrossPartition.MaxConcurrency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := vector.New(c, tc.opts)
			var ve *cosmoserr.ValidationError
			if s != nil || !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, cosmoserr.ErrValidation) {
				t.Fatalf("New = %v, %v; want a ValidationError for %s", s, err, tc.field)
			}
		})
	}
	if _, err := vector.New(nil, vector.Options{}); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("New(nil) = %v", err)
	}
	if _, err := vector.ForRepository[struct{}](nil, vector.Options{}); !errors.Is(err, cosmoserr.ErrValidation) {
		t.Fatalf("ForRepository(nil) = %v", err)
	}
	got := newSearcher(t, c, vector.Options{}).Options()
	if got.MaxK != vector.DefaultMaxK || got.CrossPartition.MaxConcurrency != crosspartition.DefaultMaxConcurrency {
		t.Fatalf("Options() = %+v, want the defaults filled in", got)
	}
	// A smaller engine cap lowers the default MaxK (the default follows it; an explicit value is checked).
	if got := newSearcher(t, c, vector.Options{CrossPartition: crosspartition.Options{MaxNonStreamingItems: 10}}).Options(); got.MaxK != 10 {
		t.Fatalf("MaxK = %d, want 10", got.MaxK)
	}
}
