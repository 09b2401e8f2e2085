package cosmostest_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmostest"
)

func lwwContainer(path string) *azcosmos.ContainerProperties {
	return &azcosmos.ContainerProperties{
		PartitionKeyDefinition:   azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		ConflictResolutionPolicy: &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeLastWriteWins, ResolutionPath: path},
	}
}

// TestMultiWriteConflictsConverge: two clients preferring different regions write the same item
// within the replication lag; each region first sees its own write, and after the lag both see
// the policy's winner.
func TestMultiWriteConflictsConverge(t *testing.T) {
	tests := []struct {
		name   string
		props  *azcosmos.ContainerProperties
		first  string // written in East US
		second string // written in West US one second later
		want   float64
	}{
		{"LWW on _ts by default", nil, `{"id":"a","pk":"p","v":2}`, `{"id":"a","pk":"p","v":1}`, 1},
		{"LWW on /_ts", lwwContainer("/_ts"), `{"id":"a","pk":"p","v":2}`, `{"id":"a","pk":"p","v":1}`, 1},
		{"LWW on /version: the higher version wins though written earlier", lwwContainer("/version"),
			`{"id":"a","pk":"p","v":2,"version":9}`, `{"id":"a","pk":"p","v":1,"version":4}`, 2},
		{"LWW on /version: a missing version loses", lwwContainer("/version"),
			`{"id":"a","pk":"p","v":2,"version":1}`, `{"id":"a","pk":"p","v":1}`, 2},
		{"LWW on /version: a tie goes to the later write", lwwContainer("/version"),
			`{"id":"a","pk":"p","v":2,"version":7}`, `{"id":"a","pk":"p","v":1,"version":7}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, w, e := twoRegionsWith(t, tt.props, cosmostest.WithMultiWrite())
			put(t, w, `{"id":"a","pk":"p","v":0,"version":0}`)
			s.Advance(lag)
			if v, _ := readV(t, e, "a", nil); v != 0 {
				t.Fatalf("East US before the conflict: v=%v", v)
			}
			put(t, e, tt.first)
			s.Advance(time.Second)
			put(t, w, tt.second)
			if v, _ := readV(t, w, "a", nil); v != 1 {
				t.Fatalf("West US within the lag: v=%v, want its own write 1", v)
			}
			if v, _ := readV(t, e, "a", nil); v != 2 {
				t.Fatalf("East US within the lag: v=%v, want its own write 2", v)
			}
			s.Advance(lag)
			vw, rw := readV(t, w, "a", nil)
			ve, re := readV(t, e, "a", nil)
			if vw != tt.want || ve != tt.want || rw.ETag != re.ETag {
				t.Fatalf("after the lag West US v=%v (%s), East US v=%v (%s); want both %v", vw, rw.ETag, ve, re.ETag, tt.want)
			}
		})
	}
}

// TestMultiWriteDeleteWins: a delete wins over a concurrent update, even a later one.
func TestMultiWriteDeleteWins(t *testing.T) {
	s, w, e := twoRegions(t, cosmostest.WithMultiWrite())
	put(t, w, `{"id":"a","pk":"p","v":0}`)
	s.Advance(lag)
	if _, err := w.DeleteItem(context.Background(), pkP, "a", nil); err != nil {
		t.Fatal(err)
	}
	s.Advance(time.Second)
	put(t, e, `{"id":"a","pk":"p","v":5}`)
	s.Advance(lag)
	if vw, _ := readV(t, w, "a", nil); vw != -1 {
		t.Errorf("West US: v=%v, want deleted", vw)
	}
	if ve, _ := readV(t, e, "a", nil); ve != -1 {
		t.Errorf("East US: v=%v, want deleted", ve)
	}
}

// TestMultiWriteSessionTokens: writes answer vector session tokens; another region that has not
// caught up answers 404/1002 and the SDK retries in the next region.
func TestMultiWriteSessionTokens(t *testing.T) {
	s, w, e := twoRegions(t, cosmostest.WithMultiWrite())
	resp := put(t, e, `{"id":"a","pk":"p","v":7}`)
	token := *resp.SessionToken
	if !regexp.MustCompile(`^0:-1#\d+#0=\d+#1=\d+$`).MatchString(token) {
		t.Fatalf("multi-write session token %q is not a vector token", token)
	}
	if v, _ := readV(t, w, "a", nil); v != -1 {
		t.Fatalf("West US sees East US's write before the lag: v=%v", v)
	}
	eBefore := reads(s, east)
	if v, _ := readV(t, w, "a", &azcosmos.ItemOptions{SessionToken: &token}); v != 7 {
		t.Fatalf("West US with East US's token: v=%v, want 7", v)
	}
	if reads(s, east) == eBefore {
		t.Error("the SDK did not retry in East US")
	}
	s.Advance(lag)
	if v, resp := readV(t, w, "a", &azcosmos.ItemOptions{SessionToken: &token}); v != 7 || !regexp.MustCompile(`#1=[1-9]`).MatchString(*resp.SessionToken) {
		t.Fatalf("West US after the lag: v=%v token %q", v, *resp.SessionToken)
	}
}

// TestMultiWriteConcurrentConverges: clients in both regions write the same few items from many
// goroutines while the lag changes; once every write has replicated, both regions hold the same
// version of every item.
func TestMultiWriteConcurrentConverges(t *testing.T) {
	custom := &azcosmos.ContainerProperties{
		PartitionKeyDefinition:   azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
		ConflictResolutionPolicy: &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeCustom},
	}
	for name, props := range map[string]*azcosmos.ContainerProperties{"LWW on /version": lwwContainer("/version"), "custom": custom} {
		t.Run(name, func(t *testing.T) { concurrentConverges(t, props) })
	}
}

func concurrentConverges(t *testing.T, props *azcosmos.ContainerProperties) {
	s, w, e := twoRegionsWith(t, props, cosmostest.WithMultiWrite())
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := w
			if g%2 == 1 {
				cc = e
			}
			for i := range 15 {
				id := "k" + strconv.Itoa(i%3)
				doc := fmt.Sprintf(`{"id":%q,"pk":"p","v":%d,"version":%d}`, id, g*100+i, (g*7+i*3)%10)
				var err error
				if i%5 == 4 {
					_, err = cc.DeleteItem(ctx, pkP, id, nil)
					if code, _ := status(t, err); code == http.StatusNotFound {
						err = nil
					}
				} else {
					_, err = cc.UpsertItem(ctx, pkP, []byte(doc), nil)
				}
				if err != nil {
					t.Error(err)
					return
				}
				if i == 7 && g == 0 {
					_ = s.SetReplicationLag(east, 2*lag) // a known region (goroutine: no t.Fatal)
				}
			}
		}()
	}
	wg.Wait()
	s.Advance(3 * lag)
	for i := range 3 {
		id := "k" + strconv.Itoa(i)
		vw, rw := readV(t, w, id, nil)
		ve, re := readV(t, e, id, nil)
		if vw != ve || rw.ETag != re.ETag {
			t.Errorf("%s: West US v=%v %s, East US v=%v %s", id, vw, rw.ETag, ve, re.ETag)
		}
	}
}

// TestMultiWriteSplit: a split during the lag first replicates everything, so both regions agree
// on the conflict's winner, and writes after the split replicate per child.
func TestMultiWriteSplit(t *testing.T) {
	s, w, e := twoRegionsWith(t, lwwContainer("/version"), cosmostest.WithMultiWrite())
	put(t, w, `{"id":"a","pk":"p","v":1,"version":5}`)
	put(t, e, `{"id":"a","pk":"p","v":2,"version":3}`)
	token := *put(t, e, `{"id":"b","pk":"p","v":3}`).SessionToken
	if err := s.SplitRange("db", "c", "0"); err != nil {
		t.Fatal(err)
	}
	for _, cc := range []*azcosmos.ContainerClient{w, e} {
		if v, _ := readV(t, cc, "a", nil); v != 1 {
			t.Errorf("a after the split: v=%v, want 1 (version 5)", v)
		}
		if v, _ := readV(t, cc, "b", &azcosmos.ItemOptions{SessionToken: &token}); v != 3 {
			t.Errorf("b after the split with the parent's token: v=%v", v)
		}
	}
	put(t, e, `{"id":"a","pk":"p","v":4,"version":6}`)
	if v, _ := readV(t, w, "a", nil); v != 1 {
		t.Errorf("West US within the lag after the split: v=%v, want 1", v)
	}
	s.Advance(lag)
	if v, _ := readV(t, w, "a", nil); v != 4 {
		t.Errorf("West US after the lag: v=%v, want 4", v)
	}
}
