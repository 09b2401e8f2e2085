package changefeed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/changefeed"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// startNamed starts processor name (instance name+"-1") over e's containers with handler h.
func startNamed(t testing.TB, e *env, name string, h changefeed.Handler, o changefeed.Options) *changefeed.Processor {
	t.Helper()
	o = withLeases(e, name+"-1", h, o)
	o.Name = name
	p, err := changefeed.New(e.monitored, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("Start %s: %v", name, err)
	}
	t.Cleanup(func() { stopQuietly(p) })
	return p
}

// stopQuietly stops p if a failed test left it running.
func stopQuietly(p *changefeed.Processor) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.Stop(ctx)
}

// A processor whose name is a prefix of another's (or the other's name is its name plus the first
// characters of the account host) keeps its own lease store: both receive every change, neither
// sees the other's leases (issue 32: "views" after "views-audit" adopted its store and delivered
// nothing).
func TestNamesThatArePrefixesOfEachOtherKeepTheirOwnStores(t *testing.T) {
	for _, c := range [][2]string{{"views-audit", "views"}, {"views", "views-audit"}, {"tp1", "tp11"}, {"tp11", "tp1"}} {
		t.Run(c[0]+" then "+c[1], func(t *testing.T) {
			e := newEnv(t, 2)
			first, second := newTally(), newTally()
			p1 := startNamed(t, e, c[0], first.handle, fast())
			waitFor(t, c[0]+"'s leases", 10*time.Second, func() bool { return len(p1.State()) == 2 })
			p2 := startNamed(t, e, c[1], second.handle, fast())
			for i := range 50 {
				write(t, e.monitored, doc{ID: id(i), PK: fmt.Sprint(i % 7), Seq: i})
			}
			waitFor(t, "every change at both processors", 10*time.Second, func() bool {
				return first.distinct() == 50 && second.distinct() == 50
			}, func() { t.Logf("%s handled %d, %s handled %d", c[0], first.distinct(), c[1], second.distinct()) })
			stop(t, p2)
			stop(t, p1)
			prefix := map[string]int{}
			for _, l := range leaseDocs(t, e) {
				base, _, _ := strings.Cut(l.ID, "..")
				prefix[base]++
			}
			if len(prefix) != 2 || !slices.Equal(slices.Collect(maps.Values(prefix)), []int{2, 2}) {
				t.Errorf("lease stores %v, want one of 2 leases per processor", prefix)
			}
		})
	}
}

// syncWriter serializes writes to w (a log handler's output read by a test).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// namePair is one case of the property below: two processors, each with a name and the account
// host its lease ids are made of ("" is the host the requests go to, 127.0.0.1).
type namePair struct{ n1, h1, n2, h2 string }

// genNamePairs generates pairs of distinct processor names with hosts, stressing .NET's id layout
// "{Name}{host}_...": names that are prefixes of each other, names ending in digits before a host
// starting with digits, hosts that look like names, and pairs whose name and host run together
// into the same ids (n2 = n1+s, h1 = s+h2).
func genNamePairs(r *rand.Rand, n int) []namePair {
	const alpha, labelAlpha = "abtpviews-1._", "abtpviews1"
	word := func(min, max int) string {
		b := make([]byte, min+r.IntN(max-min+1))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return string(b)
	}
	label := func() string { // a host name's label: no "_", no "-" at either end
		b := []byte(word(1, 5))
		for i, c := range b {
			if c == '_' || c == '.' || c == '-' && (i == 0 || i == len(b)-1) {
				b[i] = labelAlpha[r.IntN(len(labelAlpha))]
			}
		}
		return string(b)
	}
	hosts := []string{"", "127.0.0.1", "1127.0.0.1", "27.0.0.1", "views", "audit.example", "audit127.0.0.1", "myaccount.documents.azure.com", "ccount.documents.azure.com", "::1"}
	host := func() string {
		if r.IntN(3) == 0 {
			return label() + "." + label()
		}
		return hosts[r.IntN(len(hosts))]
	}
	out := []namePair{
		{"views-audit", "", "views", ""}, {"tp1", "", "tp11", ""}, {"tp11", "", "tp1", ""},
		{"tp1", "1127.0.0.1", "tp11", "127.0.0.1"}, {"views-", "audit127.0.0.1", "views-audit", ""},
		{"proc", "myaccount.documents.azure.com", "procmya", "ccount.documents.azure.com"},
	}
	for len(out) < n {
		n1 := word(1, 8)
		var p namePair
		switch r.IntN(4) {
		case 0: // a prefix of the other, by a few characters
			p = namePair{n1, host(), n1 + word(1, 4), host()}
		case 1: // names ending in digits, hosts starting with them
			d := fmt.Sprint(r.IntN(20))
			p = namePair{n1 + d, "", n1 + d + fmt.Sprint(r.IntN(10)), fmt.Sprint(r.IntN(3)) + "27.0.0.1"}
		case 2: // name and host run together into the same ids
			h2, s := host(), label()
			if h2 == "" || h2 == "::1" {
				h2 = "127.0.0.1"
			}
			p = namePair{n1, s + h2, n1 + s, h2}
		default:
			p = namePair{n1, host(), word(1, 8), host()}
		}
		if r.IntN(2) == 0 {
			p = namePair{p.n2, p.h2, p.n1, p.h1}
		}
		if p.n1 != p.n2 {
			out = append(out, p)
		}
	}
	return out
}

// No two processors with different names ever hold or list the same lease, whatever their names
// and account hosts (issue 32), and each keeps .NET's id layout: processors whose name and host
// run together into the same ids cannot both use them, so the second refuses to start (a
// *cosmoserr.ValidationError of Options.Name) rather than share the first's leases.
func TestNoTwoProcessorsShareALease(t *testing.T) {
	e := newEnv(t, 2)
	ctx := context.Background()
	db, _ := e.db.Read(ctx, nil)
	c, _ := e.monitored.Read(ctx, nil)
	suffix := "_" + db.DatabaseProperties.ResourceID + "_" + c.ContainerProperties.ResourceID
	u, _ := url.Parse(e.srv.Endpoint())
	pairs := genNamePairs(rand.New(rand.NewPCG(32, 32)), scaled(150))
	// Names made of another processor's whole lease id prefix: its leases' ids start with
	// "{prefix}..", and its earlier-format ids ("{Name}_{container rid}") are this one's.
	own := "p" + u.Hostname() + suffix
	pairs = append(pairs, namePair{"p", "", own + "..x", ""}, namePair{"p", "", own + "..0", ""},
		namePair{"p", "", "p" + u.Hostname() + "_" + db.DatabaseProperties.ResourceID, ""})
	refused := 0
	defer func() { t.Logf("%d pairs, %d of them making the same ids (the second refused)", len(pairs), refused) }()
	for i, pc := range pairs {
		lc := fmt.Sprintf("leases-%d", i)
		props := azcosmos.ContainerProperties{ID: lc, PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/id"}}}
		if _, err := e.db.CreateContainer(ctx, props, nil); err != nil {
			t.Fatal(err)
		}
		leases, _ := e.db.NewContainer(lc)
		start := func(name, host string) (*changefeed.Processor, error) {
			o := fast()
			o.Name, o.Instance, o.Leases, o.Handler, o.AccountHost = name, name+"#inst", changefeed.Leases(leases), nop, host
			p, err := changefeed.New(e.monitored, o)
			if err != nil {
				t.Fatalf("%+v: New(%q): %v", pc, name, err)
			}
			t.Cleanup(func() { stopQuietly(p) })
			return p, p.Start(ctx)
		}
		base := func(name, host string) string {
			if host == "" {
				host = u.Hostname()
			}
			return name + host + suffix
		}
		collide := base(pc.n1, pc.h1) == base(pc.n2, pc.h2)
		p1, err := start(pc.n1, pc.h1)
		if err != nil {
			t.Fatalf("%+v: Start first: %v", pc, err)
		}
		if i%3 == 0 { // the first processor's store exists, but nobody runs it
			stop(t, p1)
		}
		p2, err := start(pc.n2, pc.h2)
		var ve *cosmoserr.ValidationError
		switch {
		case collide && (err == nil || !errors.As(err, &ve) || ve.Field != "Options.Name"):
			t.Errorf("%+v: both make the lease ids %s; the second started: %v", pc, base(pc.n1, pc.h1), err)
		case !collide && err != nil:
			t.Errorf("%+v: Start second: %v", pc, err)
		case collide:
			refused++
		}
		running := map[string]*changefeed.Processor{}
		if i%3 != 0 {
			running[pc.n1] = p1
		}
		if err == nil {
			running[pc.n2] = p2
		}
		for name, p := range running {
			waitFor(t, name+"'s leases", 10*time.Second, func() bool { return len(p.State()) == 2 })
		}
		// Every lease is owned by the processor whose ids it has (.NET's layout), and each
		// running processor holds exactly its own.
		owners := map[string]string{base(pc.n2, pc.h2): pc.n2 + "#inst"}
		owners[base(pc.n1, pc.h1)] = pc.n1 + "#inst" // the first's, when both make the same ids
		held := map[string]int{}
		pager := leases.NewQueryItemsPager("SELECT c.id, c.Owner FROM c WHERE IS_DEFINED(c.LeaseToken)", azPK(), nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, raw := range page.Items {
				var l struct {
					ID    string  `json:"id"`
					Owner *string `json:"Owner"`
				}
				_ = json.Unmarshal(raw, &l)
				b := l.ID[:strings.LastIndex(l.ID, "..")] // tokens have no "."
				want, ok := owners[b]
				if !ok {
					t.Errorf("%+v: lease %s is in neither processor's .NET layout", pc, l.ID)
				} else if l.Owner != nil && *l.Owner != want {
					t.Errorf("%+v: lease %s is owned by %s", pc, l.ID, *l.Owner)
				}
				if l.Owner != nil {
					held[*l.Owner]++
				}
			}
		}
		for name := range running {
			if held[name+"#inst"] != 2 {
				t.Errorf("%+v: %s holds %d leases of its store, want 2", pc, name, held[name+"#inst"])
			}
		}
		for _, p := range running {
			stop(t, p)
		}
		if t.Failed() {
			return
		}
	}
}
