package partitionkey_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

func TestOf(t *testing.T) {
	k := partitionkey.Of("contoso", int16(7), nil)
	if err := k.Err(); err != nil || k.Len() != 3 {
		t.Fatalf("Of = %d values, %v", k.Len(), err)
	}
	if got, want := k.Values(), []any{"contoso", float64(7), nil}; !reflect.DeepEqual(got, want) {
		t.Errorf("Values = %v, want %v", got, want)
	}
	if k.Value(1) != float64(7) || !k.Equal(partitionkey.Of("contoso", 7.0, nil)) || k.Equal(partitionkey.Of("contoso", 7)) {
		t.Errorf("Value/Equal of %v", k.Values())
	}
	if want := azcosmos.NewPartitionKeyString("contoso").AppendNumber(7).AppendNull(); !reflect.DeepEqual(k.SDK(), want) {
		t.Errorf("SDK = %+v, want %+v", k.SDK(), want)
	}
	if want := azcosmos.NewPartitionKeyString("a").AppendBool(true); !reflect.DeepEqual(partitionkey.Of("a").AppendBool(true), want) {
		t.Error("AppendBool does not extend the SDK key")
	}
}

// TestOfRefuses: each refusal is a *cosmoserr.ValidationError of Kind ErrInvalidPartitionKey that
// names the value and never echoes it.
func TestOfRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []any
		field  string
	}{
		{"four values", []any{"a", "b", "c", "d"}, "partitionKey"},
		{"NaN", []any{"a", math.NaN()}, "partitionKey[1]"},
		{"unsafe integer", []any{int64(1)<<53 + 12345}, "partitionKey[0]"},
		{"slice", []any{[]string{"secret-value"}}, "partitionKey[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := partitionkey.Of(tc.values...)
			var ve *cosmoserr.ValidationError
			if !errors.As(k.Err(), &ve) || !errors.Is(k.Err(), cosmoserr.ErrInvalidPartitionKey) || ve.Field != tc.field {
				t.Fatalf("Of(%v).Err() = %v, want ErrInvalidPartitionKey at %s", tc.values, k.Err(), tc.field)
			}
			if k.Len() != 0 {
				t.Errorf("a refused key has %d values", k.Len())
			}
			if msg := k.Err().Error(); strings.Contains(msg, "12345") || strings.Contains(msg, "secret-value") {
				t.Errorf("the refusal echoes the value: %s", msg)
			}
		})
	}
}
