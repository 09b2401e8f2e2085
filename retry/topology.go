package retry

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode"
)

// region is one of the account's regions.
type region struct {
	name string // as the account spells it, e.g. "West US"
	key  string // canonical: lower case, no spaces
	host string // host[:port] of its endpoint
}

// topology is what the account metadata (GET /) says about the account's regions.
type topology struct {
	readable   []region
	writable   []region
	multiWrite bool
	byHost     map[string]region
}

// canonical returns a region name the way the SDK compares them: spaces removed, lower case.
func canonical(name string) string {
	var b strings.Builder
	for _, r := range name {
		if !unicode.IsSpace(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

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

type accountRegion struct {
	Name     string `json:"name"`
	Endpoint string `json:"databaseAccountEndpoint"`
}

type accountProperties struct {
	Readable   []accountRegion `json:"readableLocations"`
	Writable   []accountRegion `json:"writableLocations"`
	MultiWrite bool            `json:"enableMultipleWriteLocations"`
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
	var props accountProperties
	if json.Unmarshal(body, &props) != nil || len(props.Writable)+len(props.Readable) == 0 {
		return nil
	}
	t := &topology{multiWrite: props.MultiWrite, byHost: map[string]region{}}
	convert := func(in []accountRegion) []region {
		out := make([]region, 0, len(in))
		for _, ar := range in {
			u, err := url.Parse(ar.Endpoint)
			if err != nil || u.Host == "" {
				continue
			}
			r := region{name: ar.Name, key: canonical(ar.Name), host: u.Host}
			out = append(out, r)
			t.byHost[r.host] = r
		}
		return out
	}
	t.writable = convert(props.Writable)
	t.readable = convert(props.Readable)
	if len(t.readable) == 0 {
		t.readable = t.writable
	}
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
