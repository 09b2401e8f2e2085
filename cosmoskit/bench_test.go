package cosmoskit

import "testing"

// BenchmarkNewOpenAccount measures New and Close for an account that already has a client: the
// cost a caller pays for asking the registry instead of keeping the *Client.
func BenchmarkNewOpenAccount(b *testing.B) {
	cfg := Config{Endpoint: "https://bench.documents.azure.com/", Key: testKey, PreferredRegions: []string{"West US", "East US"}, Logger: quiet}
	keep, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer keep.Close()
	b.ReportAllocs()
	for b.Loop() {
		c, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkContainer measures a cached container handle lookup.
func BenchmarkContainer(b *testing.B) {
	c, err := New(Config{Endpoint: "https://bench2.documents.azure.com/", Key: testKey, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Container("db", "orders"); err != nil {
			b.Fatal(err)
		}
	}
}
