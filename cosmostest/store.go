package cosmostest

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"sort"
	"sync/atomic"
)

// store is the one state of a server, shared by all regions. Everything in it is guarded by
// server.mu.
type store struct {
	dbs      map[string]*database
	offers   map[string]*offer // by offer id (lower-case)
	nextDB   uint32
	nextColl uint32
	nextOff  uint32
	etagSeq  uint64
}

// storeSeq makes resource ids unique across the servers of one process: the SDK caches
// container routing (pkranges) by endpoint and container _rid for as long as any client of that
// endpoint is reachable, and a later server may get an earlier one's port.
var storeSeq atomic.Uint32

func newStore() *store {
	return &store{dbs: map[string]*database{}, offers: map[string]*offer{}, nextDB: storeSeq.Add(1) << 12}
}

type database struct {
	id    string
	rid   string
	ts    int64
	etag  string
	colls map[string]*container
	offer *offer
}

// offer is a throughput resource of a database or container.
type offer struct {
	id          string
	resourceRID string
	resource    string // "dbs/<rid>/" or "dbs/<rid>/colls/<rid>/"
	content     map[string]any
	ts          int64
	etag        string
}

// nextETag returns a new quoted etag; every write gets a fresh one.
func (st *store) nextETag() string {
	st.etagSeq++
	return fmt.Sprintf("\"%08x-0000-0000-0000-%012x\"", st.etagSeq>>32, st.etagSeq&0xffffffffffff)
}

func (st *store) newDBRID() string {
	st.nextDB++
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], st.nextDB)
	return base64.StdEncoding.EncodeToString(b[:])
}

func (st *store) newCollRID(db *database) string {
	st.nextColl++
	raw, _ := base64.StdEncoding.DecodeString(db.rid)
	b := make([]byte, 8)
	copy(b, raw)
	binary.BigEndian.PutUint32(b[4:], st.nextColl|0x80000000)
	return base64.StdEncoding.EncodeToString(b)
}

func (st *store) newOfferID() string {
	st.nextOff++
	var b [3]byte
	b[0], b[1], b[2] = byte(st.nextOff>>16), byte(st.nextOff>>8), byte(st.nextOff)
	// URL alphabet: offer ids appear in paths.
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// docRID returns an item _rid: the container's 8 bytes plus the 8-byte document number,
// little-endian as the service writes it (the .NET SDK's ResourceId.Document reads those bytes
// with BitConverter, and orders rows tied on ORDER BY values by that number when it resumes).
func docRID(c *container, seq uint64) string {
	raw, _ := base64.StdEncoding.DecodeString(c.rid)
	b := make([]byte, 16)
	copy(b, raw)
	binary.LittleEndian.PutUint64(b[8:], seq)
	return base64.StdEncoding.EncodeToString(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
