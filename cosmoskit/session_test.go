package cosmoskit_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/consistency"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

// tokensSent records the x-ms-session-token of the item reads the server receives.
type tokensSent struct {
	mu  sync.Mutex
	all []string
}

func (ts *tokensSent) match(r *http.Request) bool {
	if r.Method == http.MethodGet {
		ts.mu.Lock()
		ts.all = append(ts.all, r.Header.Get("X-Ms-Session-Token"))
		ts.mu.Unlock()
	}
	return false
}

func (ts *tokensSent) last() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.all) == 0 {
		return "<none>"
	}
	return ts.all[len(ts.all)-1]
}

// TestSessionContainerByDefault: New installs the session container, so a read after a write
// carries the write's token; Session.Disable leaves it out.
func TestSessionContainerByDefault(t *testing.T) {
	for _, disable := range []bool{false, true} {
		s := cosmostest.NewServer(t)
		c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet, Session: consistency.Options{Disable: disable}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ccRes, err := c.EnsureContainer(ctx, "db", cosmoskit.ContainerSpec{ID: "c", PartitionKeyPaths: []string{"/pk"}})
		if err != nil {
			t.Fatal(err)
		}
		cc := ccRes.Container
		sent := &tokensSent{}
		s.InjectFault(cosmostest.Fault{ResourceType: cosmostest.ResourceDocument, Match: sent.match})
		pk := azcosmos.NewPartitionKeyString("a")
		w, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"1","pk":"a"}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cc.ReadItem(ctx, pk, "1", nil); err != nil {
			t.Fatal(err)
		}
		switch {
		case disable && (c.Session() != nil || sent.last() != ""):
			t.Errorf("Session.Disable: Session() = %v, the read carried %q", c.Session(), sent.last())
		case !disable && (c.Session() == nil || sent.last() != *w.SessionToken):
			t.Errorf("default: the read carried %q, want the write's %q", sent.last(), *w.SessionToken)
		case !disable && c.Session().Options() != (consistency.Options{MaxContainers: consistency.DefaultMaxContainers}):
			t.Errorf("Session().Options() = %+v", c.Session().Options())
		case !disable && c.Session().Token(s.Endpoint(), "db", "c") != *w.SessionToken:
			t.Errorf("Session().Token = %q", c.Session().Token(s.Endpoint(), "db", "c"))
		}
		c.Close()
	}
}
