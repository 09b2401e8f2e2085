package cosmostest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ItemRef names an item of a container: its partition key as the JSON array text the
// x-ms-documentdb-partitionkey header carries (e.g. `["k1"]`, `["t1",2]`; a missing value is
// `{}`), and its id.
type ItemRef struct {
	PartitionKey string
	ID           string
}

// WithWriteCounts makes the server count the writes it applies to each item; read them with
// (*Server).WriteCounts. It is for tests that must show an importer or a retry loop applied every
// operation once (an upsert applied twice leaves the same document behind, so the items alone
// cannot show it). A write is a create, replace, upsert, patch or delete that succeeded,
// over HTTP: a point operation, each operation of a transactional batch that committed (none of
// a rolled-back one), each operation of a bulk request that succeeded. Seed and the other
// direct methods are not counted, nor a region's copy applying a replicated write. Default: off
// (the counters hold one entry per item ever written).
func WithWriteCounts() Option { return func(c *config) { c.writeCounts = true } }

// WriteCounts returns how many writes the server applied to each item of container c of database
// db since the container was created (see WithWriteCounts), deleted items included. Errors: the
// server was started without WithWriteCounts; a missing database or container (matching
// fs.ErrNotExist).
func (s *Server) WriteCounts(db, c string) (map[ItemRef]int, error) {
	srv := s.s
	if !srv.cfg.writeCounts {
		return nil, errors.New("cosmostest: WriteCounts: the server was started without WithWriteCounts")
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	cont, err := srv.container(db, c)
	if err != nil {
		return nil, fmt.Errorf("cosmostest: WriteCounts %s/%s: %w", db, c, directError(err))
	}
	out := make(map[ItemRef]int, len(cont.root().writes))
	for k, n := range cont.root().writes {
		out[k] = n
	}
	return out, nil
}

// countWrite records a write applied to (pk, id) of c; callers hold srv.mu. Writes of a batch's
// working copy are counted when the batch commits (batchTxn.commit).
func (srv *server) countWrite(c *container, pk []any, id string) {
	if !srv.cfg.writeCounts {
		return
	}
	root := c.root()
	if root.writes == nil {
		root.writes = map[ItemRef]int{}
	}
	root.writes[ItemRef{PartitionKey: pkText(pk), ID: id}]++
}

// pkText is the JSON array text of partition key values.
func pkText(pk []any) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range pk {
		if i > 0 {
			b.WriteByte(',')
		}
		if v == undefinedValue {
			b.WriteString("{}")
			continue
		}
		j, _ := json.Marshal(v)
		b.Write(j)
	}
	b.WriteByte(']')
	return b.String()
}
