package consistency

import (
	"strconv"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// BenchmarkStoreGet is the per-request cost of looking up a container's token (many goroutines).
func BenchmarkStoreGet(b *testing.B) {
	s := newStore(DefaultMaxContainers)
	for i := range 100 {
		ts, _ := wire.ParseSessionTokens("0:-1#12,1:-1#40,2:-1#7")
		s.merge(storeKey("acct", link("db", "c"+strconv.Itoa(i))), ts)
	}
	key := storeKey("acct", link("db", "c42"))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, h := s.get(key); h == "" {
				b.Fatal("no token")
			}
		}
	})
}

// BenchmarkStoreMerge is the per-response cost of capturing a token (many goroutines, one
// container of 16 ranges).
func BenchmarkStoreMerge(b *testing.B) {
	s := newStore(DefaultMaxContainers)
	key := storeKey("acct", link("db", "c"))
	for r := range 16 {
		ts, _ := wire.ParseSessionTokens(strconv.Itoa(r) + ":-1#1")
		s.merge(key, ts)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			ts, _ := wire.ParseSessionTokens(strconv.Itoa(i%16) + ":-1#" + strconv.Itoa(i))
			s.merge(key, ts)
		}
	})
}

// BenchmarkStoreMergeKnown is the common case of a read's response bringing nothing newer.
func BenchmarkStoreMergeKnown(b *testing.B) {
	s := newStore(DefaultMaxContainers)
	key := storeKey("acct", link("db", "c"))
	for r := range 16 {
		ts, _ := wire.ParseSessionTokens(strconv.Itoa(r) + ":-1#100")
		s.merge(key, ts)
	}
	ts, _ := wire.ParseSessionTokens("7:-1#50")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			s.merge(key, ts)
		}
	})
}
