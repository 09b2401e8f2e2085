package partitionkey_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

func TestSynthetic(t *testing.T) {
	at := time.Date(2026, 12, 31, 23, 30, 0, 0, time.FixedZone("x", -3600)) // 2027-01-01 00:30 UTC
	for _, tc := range []struct {
		s      partitionkey.Synthetic
		fields []string
		want   string
	}{
		{partitionkey.Synthetic{}, []string{"contoso"}, "contoso"},
		{partitionkey.Synthetic{}, []string{"contoso", "eu"}, "contoso|eu"},
		{partitionkey.Synthetic{Bucket: partitionkey.Month}, []string{"contoso"}, "contoso|2027-01"},
		{partitionkey.Synthetic{Bucket: partitionkey.Year}, []string{"contoso"}, "contoso|2027"},
		{partitionkey.Synthetic{Bucket: partitionkey.Day}, []string{"d-1"}, "d-1|2027-01-01"},
		{partitionkey.Synthetic{Bucket: partitionkey.Hour}, []string{"d"}, "d|2027-01-01T00"},
		{partitionkey.Synthetic{Separator: "-", Bucket: partitionkey.Month}, []string{"tenantId"}, "tenantId-2027-01"},
	} {
		got, err := tc.s.At(at, tc.fields...)
		if err != nil || got != tc.want {
			t.Errorf("%+v.At(%v) = %q, %v; want %q", tc.s, tc.fields, got, err, tc.want)
		}
	}
	if s := (partitionkey.Synthetic{}).Options(); s.Separator != "|" || s.MaxBytes != 2048 || s.Bucket != partitionkey.NoBucket {
		t.Fatalf("defaults: %+v", s)
	}
	if v, err := (partitionkey.Synthetic{Bucket: partitionkey.Month}).Value("a", "b"); err != nil || v != "a|b" {
		t.Fatalf("Value ignores the bucket: %q %v", v, err)
	}
	for _, tc := range []struct {
		s      partitionkey.Synthetic
		fields []string
		field  string
	}{
		{partitionkey.Synthetic{}, nil, "fields"},
		{partitionkey.Synthetic{}, []string{"a", ""}, "fields[1]"},
		{partitionkey.Synthetic{}, []string{"a|b", "c"}, "fields[0]"},
		{partitionkey.Synthetic{Separator: "-"}, []string{"a", "b-c"}, "fields[1]"},
		{partitionkey.Synthetic{}, []string{strings.Repeat("x", 2000), strings.Repeat("y", 48)}, "partitionKey"},
		{partitionkey.Synthetic{MaxBytes: 101, Bucket: partitionkey.Month}, []string{strings.Repeat("x", 94)}, "partitionKey"},
		{partitionkey.Synthetic{Bucket: partitionkey.Bucket(99)}, []string{"a"}, "bucket"},
		// "a|" + "||" + "b" and "a" + "||" + "|b" are both "a|||b": the one that does not split back
		// at the separator is refused, so no two field lists share a value.
		{partitionkey.Synthetic{Separator: "||"}, []string{"a|", "b"}, "fields"},
		{partitionkey.Synthetic{Separator: "--"}, []string{"x-", "y"}, "fields"},
		{partitionkey.Synthetic{Separator: "::"}, []string{"t:", "u", "v"}, "fields"},
	} {
		_, err := tc.s.At(at, tc.fields...)
		var ve *cosmoserr.ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field || !errors.Is(err, cosmoserr.ErrInvalidPartitionKey) {
			t.Errorf("%+v.At(%d fields) = %v, want a ValidationError on %s", tc.s, len(tc.fields), err, tc.field)
		}
	}
	// The other reading of "a|||b" is accepted, and it is the one the value splits back into.
	if v, err := (partitionkey.Synthetic{Separator: "||"}).Value("a", "|b"); err != nil || v != "a|||b" {
		t.Fatalf(`Value("a", "|b") = %q, %v`, v, err)
	}
	// Exactly at the limit is accepted.
	if _, err := (partitionkey.Synthetic{}).Value(strings.Repeat("x", 2000), strings.Repeat("y", 47)); err != nil {
		t.Fatal(err)
	}
}
