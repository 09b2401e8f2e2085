package partitionkey

import (
	"strconv"
	"strings"
	"time"
)

// Separator is what Synthetic joins fields with by default. "|" was chosen over "-" or "_"
// because ids and tenant names (GUIDs, slugs) often contain those, and a field containing the
// separator would make two different field lists give the same key; Synthetic refuses such a
// field instead of escaping it, so keys stay readable.
const Separator = "|"

// Bucket is the time granularity Synthetic appends to a key, in UTC.
type Bucket int

const (
	// NoBucket appends nothing (the default).
	NoBucket Bucket = iota
	// Year appends "2006".
	Year
	// Month appends "2006-01".
	Month
	// Day appends "2006-01-02".
	Day
	// Hour appends "2006-01-02T15".
	Hour
)

// layout is the time layout of b.
func (b Bucket) layout() string {
	switch b {
	case Year:
		return "2006"
	case Month:
		return "2006-01"
	case Day:
		return "2006-01-02"
	case Hour:
		return "2006-01-02T15"
	}
	return ""
}

// String names the bucket.
func (b Bucket) String() string {
	switch b {
	case NoBucket:
		return "none"
	case Year:
		return "year"
	case Month:
		return "month"
	case Day:
		return "day"
	case Hour:
		return "hour"
	}
	return "Bucket(invalid)"
}

// Synthetic builds one-value keys from several fields, e.g. Synthetic{Bucket: Month}.At(t,
// tenantID) is "contoso|2026-12". The zero value joins with Separator, adds no bucket and allows
// MaxValueBytes (2,048 bytes). It is a value: copy and share it freely.
type Synthetic struct {
	// Separator between fields and before the bucket. Default (""): Separator ("|").
	Separator string
	// Bucket appended by At. Default: NoBucket.
	Bucket Bucket
	// MaxBytes is the longest key value accepted. Default (0): MaxValueBytes; set
	// MaxLegacyValueBytes (101) for a container whose definition has version 1.
	MaxBytes int
}

// Options returns s with every default filled in: the options in effect.
func (s Synthetic) Options() Synthetic {
	if s.Separator == "" {
		s.Separator = Separator
	}
	if s.MaxBytes <= 0 {
		s.MaxBytes = MaxValueBytes
	}
	return s
}

// Value joins fields with the separator. A field that is empty or contains the separator, fields
// that would not split back at the separator (with "||", a field ending in "|" followed by another),
// no field at all, or a result longer than MaxBytes is a *cosmoserr.ValidationError.
func (s Synthetic) Value(fields ...string) (string, error) {
	return s.join("", fields)
}

// At is Value followed by the separator and the bucket of t in UTC (with NoBucket, just Value).
func (s Synthetic) At(t time.Time, fields ...string) (string, error) {
	l := s.Bucket.layout()
	if l == "" && s.Bucket != NoBucket {
		return "", invalid("bucket", "is not a known Bucket")
	}
	var suffix string
	if l != "" {
		suffix = t.UTC().Format(l)
	}
	return s.join(suffix, fields)
}

// Key is Value as a one-level Key.
func (s Synthetic) Key(fields ...string) (Key, error) {
	v, err := s.Value(fields...)
	if err != nil {
		return Key{}, err
	}
	return Of(v), nil
}

// KeyAt is At as a one-level Key.
func (s Synthetic) KeyAt(t time.Time, fields ...string) (Key, error) {
	v, err := s.At(t, fields...)
	if err != nil {
		return Key{}, err
	}
	return Of(v), nil
}

func (s Synthetic) join(suffix string, fields []string) (string, error) {
	s = s.Options()
	if len(fields) == 0 {
		return "", invalid("fields", "no field to build a key from")
	}
	n := len(suffix)
	for i, f := range fields {
		switch {
		case f == "":
			return "", invalid(field(i), "is empty")
		case strings.Contains(f, s.Separator):
			return "", invalid(field(i), "contains the separator %q", s.Separator)
		}
		n += len(f) + len(s.Separator)
	}
	if suffix == "" {
		n -= len(s.Separator)
	}
	if n > s.MaxBytes {
		return "", invalid("partitionKey", "is %d bytes, the limit is %d", n, s.MaxBytes)
	}
	var b strings.Builder
	b.Grow(n)
	for i, f := range fields {
		if i > 0 {
			b.WriteString(s.Separator)
		}
		b.WriteString(f)
	}
	// A field may end or start with part of a multi-character separator without containing it:
	// with "||", ("a|", "b") and ("a", "|b") would both give "a|||b". A value is accepted only if
	// splitting it at the separator gives the fields back, so no two field lists share a value.
	if len(fields) > 1 && len(s.Separator) > 1 {
		i := 0
		for part := range strings.SplitSeq(b.String(), s.Separator) {
			if i >= len(fields) || part != fields[i] {
				return "", invalid("fields", "would not read back: a field starts or ends with part of the separator %q", s.Separator)
			}
			i++
		}
	}
	if suffix != "" {
		b.WriteString(s.Separator)
		b.WriteString(suffix)
	}
	return b.String(), nil
}

func field(i int) string { return "fields[" + strconv.Itoa(i) + "]" }
