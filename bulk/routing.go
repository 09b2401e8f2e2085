package bulk

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/clientaccess"
	"github.com/cosmoskit/cosmoskit-go/internal/epk"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
	"github.com/cosmoskit/cosmoskit-go/partitionkey"
)

// containerInfo is what a job needs to know of its container: the partition key definition
// (to check and hash keys).
type containerInfo struct {
	def     partitionkey.Definition
	paths   []string
	kind    string
	version int
}

func (c *containerInfo) hash(vals []any) string { return epk.Hash(vals, c.kind, c.version) }

// pkRange is one physical partition as the pkranges feed lists it.
type pkRange struct {
	ID           string `json:"id"`
	MinInclusive string `json:"minInclusive"`
	MaxExclusive string `json:"maxExclusive"`
}

// routingMap is a container's physical partitions, sorted by their EPK ranges.
type routingMap []pkRange

// lookup returns the range holding effective partition key e.
func (m routingMap) lookup(e string) pkRange {
	i := sort.Search(len(m), func(i int) bool { return epk.Compare(m[i].MaxExclusive, e) > 0 })
	if i == len(m) {
		i = len(m) - 1
	}
	return m[i]
}

// readContainer reads the container's partition key definition.
func (e *Executor) readContainer(ctx context.Context) (*containerInfo, error) {
	resp, err := e.get(ctx, cosmoserr.OpReadContainer, "", clientaccess.Resource{Type: "colls", Link: e.cc.Link()}, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var props struct {
		PartitionKey struct {
			Paths   []string `json:"paths"`
			Kind    string   `json:"kind"`
			Version int      `json:"version"`
		} `json:"partitionKey"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&props); err != nil {
		return nil, &cosmoserr.Error{Operation: cosmoserr.OpReadContainer, Database: e.db, Container: e.coll, StatusCode: resp.StatusCode, Err: err}
	}
	pk := props.PartitionKey
	def, err := partitionkey.DefinitionOf(azcosmos.PartitionKeyDefinition{Paths: pk.Paths, Kind: azcosmos.PartitionKeyKind(pk.Kind), Version: pk.Version})
	if err != nil {
		return nil, err
	}
	return &containerInfo{def: def, paths: def.Paths(), kind: string(def.Kind()), version: pk.Version}, nil
}

// readRanges reads the container's partition key ranges, every page.
func (e *Executor) readRanges(ctx context.Context) (routingMap, error) {
	var out routingMap
	cont := ""
	for {
		hdr := map[string]string{}
		if cont != "" {
			hdr[wire.HeaderContinuation] = cont
		}
		resp, err := e.get(ctx, cosmoserr.OpReadPartitionKeyRanges, "/pkranges",
			clientaccess.Resource{Type: "pkranges", Link: e.cc.Link()}, hdr)
		if err != nil {
			return nil, err
		}
		var page struct {
			PartitionKeyRanges []pkRange `json:"PartitionKeyRanges"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		_ = resp.Body.Close()
		if err != nil {
			return nil, &cosmoserr.Error{Operation: cosmoserr.OpReadPartitionKeyRanges, Database: e.db, Container: e.coll, StatusCode: resp.StatusCode, Err: err}
		}
		out = append(out, page.PartitionKeyRanges...)
		if cont = resp.Header.Get(wire.HeaderContinuation); cont == "" {
			break
		}
	}
	if len(out) == 0 {
		return nil, &cosmoserr.Error{Operation: cosmoserr.OpReadPartitionKeyRanges, Database: e.db, Container: e.coll, Message: "the container lists no partition key range"}
	}
	sort.Slice(out, func(i, j int) bool { return epk.Compare(out[i].MinInclusive, out[j].MinInclusive) < 0 })
	return out, nil
}

// get sends a GET for the container's path followed by suffix and returns a 200 response;
// anything else is a *cosmoserr.Error for op.
func (e *Executor) get(ctx context.Context, op, suffix string, res clientaccess.Resource, hdr map[string]string) (*http.Response, error) {
	resp, err := e.cc.Send(ctx, http.MethodGet, suffix, res, hdr, http.StatusOK)
	if err != nil {
		return nil, cosmoserr.FromError(op, err)
	}
	return resp, nil
}

// drain reads and closes a response body so the connection can be reused.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}
