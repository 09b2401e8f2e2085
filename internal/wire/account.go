package wire

import (
	"encoding/json"
	"net/url"
)

// Account is what the account metadata (the body of GET /) says about the account's regions.
type Account struct {
	// Writable and Readable are the regions in the account's order; a region whose endpoint is
	// not an absolute URL with a host is left out. Readable is Writable when the account lists no
	// read regions.
	Writable, Readable []Region
	// MultiWrite reports enableMultipleWriteLocations.
	MultiWrite bool
	// DefaultConsistency is userConsistencyPolicy.defaultConsistencyLevel ("Session", "Strong",
	// ...), "" when absent.
	DefaultConsistency string
}

// Region is one of the account's regions.
type Region struct {
	// Name is the name as the account spells it ("West US"); Key is CanonicalRegion(Name).
	Name, Key string
	// Host is the host[:port] of its endpoint.
	Host string
}

type accountRegion struct {
	Name     string `json:"name"`
	Endpoint string `json:"databaseAccountEndpoint"`
}

// ParseAccount reads account metadata. ok is false when body is not JSON or lists no region with
// a usable endpoint.
func ParseAccount(body []byte) (a Account, ok bool) {
	var props struct {
		Readable   []accountRegion `json:"readableLocations"`
		Writable   []accountRegion `json:"writableLocations"`
		MultiWrite bool            `json:"enableMultipleWriteLocations"`
		Policy     struct {
			Default string `json:"defaultConsistencyLevel"`
		} `json:"userConsistencyPolicy"`
	}
	if json.Unmarshal(body, &props) != nil {
		return Account{}, false
	}
	convert := func(in []accountRegion) []Region {
		out := make([]Region, 0, len(in))
		for _, ar := range in {
			u, err := url.Parse(ar.Endpoint)
			if err != nil || u.Host == "" {
				continue
			}
			out = append(out, Region{Name: ar.Name, Key: CanonicalRegion(ar.Name), Host: u.Host})
		}
		return out
	}
	a = Account{Writable: convert(props.Writable), Readable: convert(props.Readable), MultiWrite: props.MultiWrite,
		DefaultConsistency: props.Policy.Default}
	if len(a.Readable) == 0 {
		a.Readable = a.Writable
	}
	if len(a.Writable)+len(a.Readable) == 0 {
		return Account{}, false
	}
	return a, true
}
