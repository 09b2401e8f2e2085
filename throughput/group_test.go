package throughput_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/cosmostest"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
	"github.com/cosmoskit/cosmoskit-go/throughput"
)

var quiet = slog.New(slog.DiscardHandler)

// count429 counts attempts answered 429.
type count429 struct{ n *atomic.Int64 }

func (c count429) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		c.n.Add(1)
	}
	return resp, err
}

// kit is a server with throughput limits, a cosmoskit client with the group policy installed,
// and container db/c with ru RU/s on one partition.
func kit(t *testing.T, ru int32) (*cosmostest.Server, *azcosmos.ContainerClient, *atomic.Int64) {
	t.Helper()
	s := cosmostest.NewServer(t, cosmostest.WithThroughputLimits())
	var throttles atomic.Int64
	c, err := cosmoskit.New(cosmoskit.Config{Endpoint: s.Endpoint(), Key: s.Key(), Logger: quiet,
		PerRetryPolicies: []policy.Policy{count429{&throttles}, throughput.Policy(), throughput.Policy()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx := context.Background()
	if _, err := c.Cosmos().CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.Cosmos().NewDatabase("db")
	tp := azcosmos.NewManualThroughputProperties(ru)
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}},
		&azcosmos.CreateContainerOptions{ThroughputProperties: &tp}); err != nil {
		t.Fatal(err)
	}
	cc, _ := db.NewContainer("c")
	return s, cc, &throttles
}

// TestGroupCapsSpending: writers in a group capped at 30% of a 1,000 RU/s container spend
// 300 RU/s (±15% per second after the first), charged by RU not by requests, while point reads
// outside the group are never throttled.
func TestGroupCapsSpending(t *testing.T) {
	_, cc, throttles := kit(t, 1000)
	ctx := context.Background()
	g, err := throughput.NewGroup(ctx, cc, throughput.GroupOptions{Name: "background", TargetFraction: 0.15, Priority: azcosmos.PriorityLevelLow, Burst: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if g.Target() != 150 {
		t.Fatalf("Target() = %v, want 150 (15%% of 1,000)", g.Target())
	}
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"hot","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	gctx := throughput.WithGroup(ctx, g)
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				// 2 KB documents: several RU each (internal/rucharge), so requests and RU differ.
				doc := fmt.Appendf(nil, `{"id":"w%d-%d","pk":"p","pad":"%01500d"}`, w, i, 0)
				if _, err := cc.UpsertItem(gctx, pk, doc, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var reads atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := cc.ReadItem(ctx, pk, "hot", nil); err != nil {
				t.Error(err)
				return
			}
			reads.Add(1)
			// At most 200 reads a second (about 200 RU/s): with the group's 150 RU/s well under
			// the container's 1,000 whatever the machine's speed, so a throttle is the group's fault.
			time.Sleep(5 * time.Millisecond)
		}
	}()
	var windows []float64
	prev := g.Stats().RequestCharge
	for range 5 {
		time.Sleep(time.Second)
		now := g.Stats().RequestCharge
		windows = append(windows, now-prev)
		prev = now
	}
	close(stop)
	wg.Wait()
	checkWindows(t, windows, 150)
	if n := throttles.Load(); n != 0 || reads.Load() == 0 {
		t.Errorf("%d throttled attempts, %d point reads: the group should leave the rest of the budget to them", n, reads.Load())
	}
	if st := g.Stats(); st.Requests == 0 || st.Waited == 0 {
		t.Errorf("stats %+v: the group should have made requests wait", st)
	}
}

// TestGroupHeaders: a group's priority and bucket travel on its requests; requests without a
// group carry neither.
func TestGroupHeaders(t *testing.T) {
	s, cc, _ := kit(t, 1000)
	var mu sync.Mutex
	var seen []string
	s.InjectFault(cosmostest.Fault{Operation: cosmostest.OpUpsertItem, Match: func(r *http.Request) bool {
		mu.Lock()
		seen = append(seen, r.Header.Get(wire.HeaderPriorityLevel)+"/"+r.Header.Get(wire.HeaderThroughputBucket))
		mu.Unlock()
		return false
	}})
	g, err := throughput.NewGroup(context.Background(), nil, throughput.GroupOptions{Name: "g", TargetRUPerSecond: 500, Priority: azcosmos.PriorityLevelLow, ThroughputBucket: 2})
	if err != nil {
		t.Fatal(err)
	}
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.UpsertItem(throughput.WithGroup(context.Background(), g), pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.UpsertItem(context.Background(), pk, []byte(`{"id":"b","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(seen) != "[Low/2 /]" {
		t.Errorf("headers seen %q, want the group's on the first request only", seen)
	}
	if st := g.Stats(); st.Requests != 1 || st.RequestCharge <= 0 {
		t.Errorf("stats %+v: one request, charged once although the policy is installed twice", st)
	}
}

// TestGroupWaitHonoursContext: a request waiting for budget ends with its context, unsent.
func TestGroupWaitHonoursContext(t *testing.T) {
	s, cc, _ := kit(t, 1000)
	g, _ := throughput.NewGroup(context.Background(), nil, throughput.GroupOptions{Name: "tiny", TargetRUPerSecond: 1})
	gctx := throughput.WithGroup(context.Background(), g)
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.UpsertItem(gctx, pk, []byte(`{"id":"a","pk":"p"}`), nil); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	ctx, cancel := context.WithTimeout(gctx, 100*time.Millisecond)
	defer cancel()
	_, err := cc.UpsertItem(ctx, pk, []byte(`{"id":"b","pk":"p"}`), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v, want the context's deadline", err)
	}
	if n := s.Requests(cosmostest.RequestFilter{Operation: cosmostest.OpUpsertItem}); n != 0 {
		t.Errorf("%d upserts reached the server", n)
	}
}

func TestNewGroupValidates(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		o     throughput.GroupOptions
		field string
	}{
		"no name":      {throughput.GroupOptions{TargetRUPerSecond: 1}, "GroupOptions.Name"},
		"no target":    {throughput.GroupOptions{Name: "g"}, "GroupOptions.TargetRUPerSecond"},
		"both targets": {throughput.GroupOptions{Name: "g", TargetRUPerSecond: 1, TargetFraction: 0.5}, "GroupOptions.TargetRUPerSecond"},
		"fraction > 1": {throughput.GroupOptions{Name: "g", TargetFraction: 1.5}, "GroupOptions.TargetFraction"},
		"NaN":          {throughput.GroupOptions{Name: "g", TargetRUPerSecond: math.NaN()}, "GroupOptions.TargetRUPerSecond"},
		"priority":     {throughput.GroupOptions{Name: "g", TargetRUPerSecond: 1, Priority: "Medium"}, "GroupOptions.Priority"},
		"bucket":       {throughput.GroupOptions{Name: "g", TargetRUPerSecond: 1, ThroughputBucket: 6}, "GroupOptions.ThroughputBucket"},
		"burst":        {throughput.GroupOptions{Name: "g", TargetRUPerSecond: 1, Burst: -1}, "GroupOptions.Burst"},
		"no container": {throughput.GroupOptions{Name: "g", TargetFraction: 0.5}, "container"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := throughput.NewGroup(ctx, nil, tc.o)
			var ve *cosmoserr.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field {
				t.Fatalf("%v, want a ValidationError for %s", err, tc.field)
			}
		})
	}
	g, err := throughput.NewGroup(ctx, nil, throughput.GroupOptions{Name: "g", TargetRUPerSecond: 300})
	if err != nil {
		t.Fatal(err)
	}
	if o := g.Options(); o.Burst != time.Second || o.TargetRUPerSecond != 300 || g.Target() != 300 {
		t.Errorf("Options() = %+v, Target() = %v", o, g.Target())
	}
	if throughput.FromContext(throughput.WithGroup(ctx, g)) != g || throughput.FromContext(ctx) != nil {
		t.Error("FromContext does not return the group WithGroup set")
	}
}

// checkWindows checks the RU a group spent in 1 s windows against its target: over the windows
// after the first (the start), within ±15% of the target; no window above the target plus the
// group's burst (1 s) and a little.
func checkWindows(t *testing.T, windows []float64, target float64) {
	t.Helper()
	sum := 0.0
	for i, w := range windows[1:] {
		sum += w
		if w > 2.2*target {
			t.Errorf("second %d: %.0f RU, more than the target %v plus its burst (windows %v)", i+2, w, target, windows)
		}
	}
	want := target * float64(len(windows)-1)
	if math.Abs(sum-want)/want > 0.15 {
		t.Errorf("%.0f RU over %d s, want %.0f ±15%% (windows %v)", sum, len(windows)-1, want, windows)
	}
}

// TestGlobalGroupShares: processes sharing a global group take equal shares of its total while
// they run, and the whole of it once the others stopped (records without a share, as a crashed
// process's record written by an older version, count in the number of processes).
func TestGlobalGroupShares(t *testing.T) {
	s, cc, _ := kit(t, 1000)
	if err := s.CreateContainer("db", "control", "/groupId"); err != nil {
		t.Fatal(err)
	}
	admin, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	control, _ := admin.NewContainer("db", "control")
	ctx := context.Background()
	opts := throughput.GroupOptions{Name: "import", TargetFraction: 0.6}
	gopts := func(id string) throughput.GlobalOptions {
		return throughput.GlobalOptions{Control: control, ClientID: id, Renew: 50 * time.Millisecond, Expiry: 300 * time.Millisecond}
	}
	var groups []*throughput.GlobalGroup
	var cancels []context.CancelFunc
	var wg sync.WaitGroup
	for _, id := range []string{"a", "b", "c"} {
		g, err := throughput.NewGlobalGroup(ctx, cc, opts, gopts(id))
		if err != nil {
			t.Fatal(err)
		}
		if g.Total() != 600 || g.Target() != 0 {
			t.Fatalf("total %v, target %v before Run, want 600 and 0 (requests wait until it joins)", g.Total(), g.Target())
		}
		rctx, cancel := context.WithCancel(ctx)
		cancels = append(cancels, cancel)
		groups = append(groups, g)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.Run(rctx); err != nil {
				t.Error(err)
			}
		}()
	}
	defer func() {
		for _, c := range cancels {
			c()
		}
		wg.Wait()
	}()
	waitFor := func(g *throughput.GlobalGroup, want float64) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for g.Target() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: target %v, want %v", g.GlobalOptions().ClientID, g.Target(), want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, g := range groups {
		waitFor(g, 200)
	}
	cancels[1]() // b stops and deletes its record
	cancels[2]() // so does c
	waitFor(groups[0], 600)
	// A process that crashed: its record counts until it is Expiry old.
	rec := fmt.Appendf(nil, `{"id":"crashed","groupId":"import","renewedAt":%d}`, time.Now().UnixMilli())
	if _, err := control.UpsertItem(ctx, azcosmos.NewPartitionKeyString("import"), rec, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(groups[0], 300)
	waitFor(groups[0], 600)

	if _, err := throughput.NewGlobalGroup(ctx, cc, opts, throughput.GlobalOptions{}); err == nil {
		t.Error("no control container accepted")
	}
	if _, err := throughput.NewGlobalGroup(ctx, cc, opts, throughput.GlobalOptions{Control: control, Renew: time.Second, Expiry: time.Second}); err == nil {
		t.Error("an expiry shorter than twice the renewal accepted")
	}
}

// TestGlobalGroupJoinWithinTotal: a process joining a global group whose only member holds the
// whole total takes nothing until the member gives up half at its next renewal: the shares in
// effect never add up to more than the total, at every moment, then settle at half each. A
// group whose control container does not exist never joins: WaitJoined returns Run's error.
func TestGlobalGroupJoinWithinTotal(t *testing.T) {
	s, cc, _ := kit(t, 1000)
	if err := s.CreateContainer("db", "control", "/groupId"); err != nil {
		t.Fatal(err)
	}
	admin, err := azcosmos.NewClientFromConnectionString(s.ConnectionString(), s.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	control, _ := admin.NewContainer("db", "control")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	start := func(id string) *throughput.GlobalGroup {
		g, err := throughput.NewGlobalGroup(ctx, cc, throughput.GroupOptions{Name: "import", TargetRUPerSecond: 600},
			throughput.GlobalOptions{Control: control, ClientID: id, Renew: 50 * time.Millisecond, Expiry: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.Run(ctx); err != nil {
				t.Error(err)
			}
		}()
		if err := g.WaitJoined(ctx); err != nil {
			t.Fatal(err)
		}
		return g
	}
	a := start("a")
	if a.Target() != 600 {
		t.Fatalf("the only member takes %v, want 600", a.Target())
	}
	b := start("b")
	// Expiry is long: a record that outlived it on a loaded machine would rightly leave its share
	// to the other process, which is not what this test is about.
	// b's share rises only after a's record names a lower share, which a takes before writing
	// it: read b first, so that a lower a is never paired with an older, higher b.
	deadline := time.Now().Add(5 * time.Second)
	for {
		sb := b.Target()
		sa := a.Target()
		if sa+sb > 600 {
			t.Fatalf("a takes %v and b %v: more than the total 600", sa, sb)
		}
		if sa == 300 && sb == 300 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a takes %v and b %v, want 300 each", sa, sb)
		}
		time.Sleep(time.Millisecond)
	}

	missing, _ := admin.NewContainer("db", "no-such-control")
	g, err := throughput.NewGlobalGroup(ctx, cc, throughput.GroupOptions{Name: "x", TargetRUPerSecond: 1}, throughput.GlobalOptions{Control: missing})
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = g.Run(ctx)
	}()
	if err := g.WaitJoined(ctx); !errors.Is(err, cosmoserr.ErrNotFound) {
		t.Errorf("WaitJoined with no control container: %v, want ErrNotFound", err)
	}
}
