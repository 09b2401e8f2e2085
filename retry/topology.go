package retry

import (
	"bytes"
	"io"
	"net/http"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// region is one of the account's regions.
type region struct {
	name string // as the account spells it, e.g. "West US"
	key  string // canonical (wire.CanonicalRegion)
	host string // host[:port] of its endpoint
}

// topology is what the account metadata (GET /) says about the account's regions.
type topology struct {
	readable   []region
	writable   []region
	multiWrite bool
	byHost     map[string]region
}

// canonical returns a region name the way the SDK compares them.
func canonical(name string) string { return wire.CanonicalRegion(name) }

func canonicalSet(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		if c := canonical(n); c != "" {
			m[c] = true
		}
	}
	return m
}

// learnTopology reads the account metadata from a successful GET / response, leaving the body
// readable for the SDK. It returns nil when the body is not account metadata.
func learnTopology(resp *http.Response) *topology {
	if resp == nil || resp.StatusCode != http.StatusOK || resp.Body == nil {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	acct, ok := wire.ParseAccount(body)
	if !ok {
		return nil
	}
	t := &topology{multiWrite: acct.MultiWrite, byHost: map[string]region{}}
	convert := func(in []wire.Region) []region {
		out := make([]region, 0, len(in))
		for _, ar := range in {
			r := region{name: ar.Name, key: ar.Key, host: ar.Host}
			out = append(out, r)
			t.byHost[r.host] = r
		}
		return out
	}
	t.writable = convert(acct.Writable)
	t.readable = convert(acct.Readable)
	return t
}

// ordered returns regions in the preferred order (canonical names), or in the account's order
// when preferred is empty or names none of them.
func ordered(regions []region, preferred []string) []region {
	if len(preferred) == 0 {
		return regions
	}
	out := make([]region, 0, len(regions))
	for _, p := range preferred {
		for _, r := range regions {
			if r.key == p {
				out = append(out, r)
				break
			}
		}
	}
	if len(out) == 0 {
		return regions
	}
	return out
}

// without returns regions minus the excluded ones.
func without(regions []region, excluded ...map[string]bool) []region {
	out := make([]region, 0, len(regions))
next:
	for _, r := range regions {
		for _, ex := range excluded {
			if ex[r.key] {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}
