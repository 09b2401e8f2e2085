package consistency_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cosmoskit/cosmoskit-go/consistency"
)

// TestConcurrent: many goroutines write and read two containers through one policy, each with its
// own Capture session; every session's token stays within its container, and the policy's token
// for each container covers every session's token for it (run with -race).
func TestConcurrent(t *testing.T) {
	p := newPolicy(t, consistency.Options{})
	e := newEnv(t, p, nil)
	const workers, ops = 8, 15
	sessions := make([]*consistency.Session, workers)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		ctx, s := consistency.Capture(context.Background())
		sessions[w] = s
		name := []string{"a", "b"}[w%2]
		c := e.container(t, name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ops {
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := c.UpsertItem(ctx, pk, []byte(`{"id":"`+id+`","pk":"p"}`), nil); err != nil {
					errs <- err
					return
				}
				if _, err := c.ReadItem(ctx, pk, id, nil); err != nil {
					errs <- err
					return
				}
				_ = p.Token(e.s.Endpoint(), "db", name)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w, s := range sessions {
		name, other := "a", "b"
		if w%2 == 1 {
			name, other = "b", "a"
		}
		if s.Token("db", other) != "" {
			t.Errorf("worker %d recorded a token for %s, which it never used", w, other)
		}
		if !covers(t, p.Token(e.s.Endpoint(), "db", name), s.Token("db", name)) {
			t.Errorf("the policy's %s token %q does not cover worker %d's %q", name, p.Token(e.s.Endpoint(), "db", name), w, s.Token("db", name))
		}
	}
}
