package partitionkey

import (
	"context"
	"errors"
	"hash/fnv"
	"strconv"
	"sync"
)

// MaxShards is the most suffixes Sharded accepts: beyond it a fan-out read costs more than the
// hot key it relieves.
const MaxShards = 1000

// Sharded spreads one write-hot key value over Count suffixed values, base+"-0" ..
// base+"-(Count-1)". An item's suffix is FNV-1a (32-bit) of its id modulo Count: stable across
// processes, releases and platforms, so the shard of an id can always be recomputed for a point
// read. Changing Count moves ids to other shards: choose it once per container (existing items
// keep the key they were written with). It is a value: copy and share it freely.
type Sharded struct {
	// Count is the number of suffixes, 1 to MaxShards. Required.
	Count int
	// MaxBytes is the longest key value accepted. Default (0): MaxValueBytes.
	MaxBytes int
}

// check validates s and base.
func (s Sharded) check(base string) error {
	max := s.MaxBytes
	if max <= 0 {
		max = MaxValueBytes
	}
	switch {
	case s.Count < 1 || s.Count > MaxShards:
		return invalid("Count", "is %d, it must be 1 to %d", s.Count, MaxShards)
	case base == "":
		return invalid("partitionKey", "the base value is empty")
	case len(base)+1+len(strconv.Itoa(s.Count-1)) > max:
		return invalid("partitionKey", "is %d bytes with its suffix, the limit is %d", len(base)+1+len(strconv.Itoa(s.Count-1)), max)
	}
	return nil
}

// Shard returns the suffix number of id: FNV-1a(id) mod Count.
func (s Sharded) Shard(id string) int {
	if s.Count <= 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return int(h.Sum32() % uint32(s.Count))
}

// Value returns the key value of item id under base: base + "-" + Shard(id).
func (s Sharded) Value(base, id string) (string, error) {
	if err := s.check(base); err != nil {
		return "", err
	}
	return base + "-" + strconv.Itoa(s.Shard(id)), nil
}

// Key is Value as a one-level Key.
func (s Sharded) Key(base, id string) (Key, error) {
	v, err := s.Value(base, id)
	if err != nil {
		return Key{}, err
	}
	return Of(v), nil
}

// Values returns every key value of base, in suffix order.
func (s Sharded) Values(base string) ([]string, error) {
	if err := s.check(base); err != nil {
		return nil, err
	}
	out := make([]string, s.Count)
	for i := range out {
		out[i] = base + "-" + strconv.Itoa(i)
	}
	return out, nil
}

// FanOut calls read once per shard of base, concurrently (at most 8 at a time), and returns the
// results concatenated in suffix order. The first error cancels the other calls' context and is
// returned; no partial result is returned with it.
func FanOut[T any](ctx context.Context, s Sharded, base string, read func(ctx context.Context, pk Key) ([]T, error)) ([]T, error) {
	values, err := s.Values(base)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([][]T, len(values))
	errs := make([]error, len(values))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, v := range values {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i], errs[i] = read(ctx, Of(v))
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// The error that caused the cancellation, not one of the cancellations it caused.
	for _, e := range errs {
		if e != nil && !errors.Is(e, context.Canceled) {
			return nil, e
		}
	}
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	var out []T
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}
