package cosmostest

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// region is one account region with its own listener; all regions share the server's store.
type region struct {
	srv   *server
	name  string
	index int

	mu   sync.Mutex
	addr string // host:port actually bound, kept so a region comes back on the same port
	hs   *http.Server
	down bool
}

func (r *region) listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if r.addr == "" { // first listen, before the server is shared; later listens reuse the port
		r.addr = ln.Addr().String()
	}
	hs := &http.Server{
		Handler:           http.HandlerFunc(r.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          r.srv.serverErrorLog(), // never stderr (errorlog.go)
	}
	if r.srv.cert != nil {
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*r.srv.cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, hs.TLSConfig)
	}
	r.mu.Lock()
	r.hs = hs
	r.mu.Unlock()
	go func() { _ = hs.Serve(ln) }()
	return nil
}

func (r *region) stop() {
	r.mu.Lock()
	hs := r.hs
	r.hs = nil
	r.mu.Unlock()
	if hs != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		defer cancel()
		_ = hs.Shutdown(ctx)
		_ = hs.Close()
	}
}

func (r *region) scheme() string {
	if r.srv.cert == nil {
		return "http"
	}
	return "https"
}

// url is the address clients reach this region on.
func (r *region) url() string { return r.scheme() + "://" + r.addr + "/" }

// advertisedURL is the address written into the account metadata.
func (r *region) advertisedURL() string {
	if r.index == 0 && r.srv.cfg.advertisedHost != "" {
		h := r.srv.cfg.advertisedHost
		if _, _, err := net.SplitHostPort(h); err != nil {
			_, port, _ := net.SplitHostPort(r.addr)
			h = net.JoinHostPort(strings.Trim(h, "[]"), port)
		}
		return r.scheme() + "://" + h + "/"
	}
	return r.url()
}

func (srv *server) region(name string) *region {
	c := canonicalRegion(name)
	for _, r := range srv.regions {
		if canonicalRegion(r.name) == c {
			return r
		}
	}
	return nil
}

// canonicalRegion matches the SDK (wire.CanonicalRegion).
func canonicalRegion(name string) string { return wire.CanonicalRegion(name) }

// SetRegionDown takes a region's listener down (its port refuses connections and open
// connections are dropped) or brings it back up on the same port. An unknown name is an error
// (errUnknownRegion), as is a port that cannot be reopened. The first region is served by the
// account endpoint, so taking it down also stops GET /. On a closed server it does nothing.
func (s *Server) SetRegionDown(name string, down bool) error {
	r, err := s.s.regionNamed("SetRegionDown", name)
	if err != nil {
		return err
	}
	s.s.mu.Lock()
	closed := s.s.closed
	s.s.mu.Unlock()
	if closed {
		return nil
	}
	r.mu.Lock()
	if r.down == down {
		r.mu.Unlock()
		return nil
	}
	r.down = down
	addr := r.addr
	r.mu.Unlock()
	if down {
		r.stop()
		return nil
	}
	for i := 0; i < 50; i++ { // the port may linger briefly after close
		if err = r.listen(addr); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.mu.Lock()
	r.down = true
	r.mu.Unlock()
	return fmt.Errorf("cosmostest: SetRegionDown: reopen region %q on %s: %w", name, addr, err)
}

// regionNamed returns the named region, or an error naming the caller and the regions there are.
func (srv *server) regionNamed(caller, name string) (*region, error) {
	if r := srv.region(name); r != nil {
		return r, nil
	}
	names := make([]string, len(srv.regions))
	for i, r := range srv.regions {
		names[i] = strconv.Quote(r.name)
	}
	return nil, fmt.Errorf("cosmostest: %s: unknown region %q (the account's regions: %s): %w", caller, name, strings.Join(names, ", "), ErrUnknownRegion)
}

// ErrUnknownRegion is matched (errors.Is) by the error of a call naming a region the server does
// not have.
var ErrUnknownRegion = errors.New("unknown region")

// FailoverWriteRegion makes the named region the write region, as the service does after a
// failover. The account metadata lists it in writableLocations and the former write region answers
// document and metadata writes with 403 / sub-status 3 (WriteForbidden). An unknown name is an
// error matching ErrUnknownRegion. In multi-write mode it only changes the order of
// writableLocations. With replication, every region first receives every pending write (as in a
// planned failover).
func (s *Server) FailoverWriteRegion(name string) error {
	r, err := s.s.regionNamed("FailoverWriteRegion", name)
	if err != nil {
		return err
	}
	srv := s.s
	srv.mu.Lock()
	defer srv.mu.Unlock()
	old := srv.writeRegion
	srv.writeRegion = r.index
	if srv.cfg.multiWrite || old == r.index {
		return nil
	}
	// Replication: every copy applies everything pending (a planned failover loses nothing), then
	// the new write region's copies, equal to the home copies now, become the old one's.
	for _, db := range srv.store.dbs {
		for _, c := range db.colls {
			if c.views == nil {
				continue
			}
			srv.catchUpAll(c)
			v := c.views[r.index]
			c.views[r.index], c.views[old] = nil, v
			for j, rc := range v.ranges {
				rc.copy.region = old
				c.ranges[j].copy.region = r.index
			}
		}
	}
	return nil
}

type accountLocation struct {
	Name     string `json:"name"`
	Endpoint string `json:"databaseAccountEndpoint"`
}

// accountJSON renders GET / ; callers hold mu.
func (srv *server) accountJSON() []byte {
	var readable, writable []accountLocation
	w := srv.regions[srv.writeRegion]
	loc := func(r *region) accountLocation { return accountLocation{Name: r.name, Endpoint: r.advertisedURL()} }
	writable = append(writable, loc(w))
	readable = append(readable, loc(w))
	for _, r := range srv.regions {
		if r != w {
			readable = append(readable, loc(r))
			if srv.cfg.multiWrite {
				writable = append(writable, loc(r))
			}
		}
	}
	body := map[string]any{
		"_self":                        "",
		"id":                           "localaccount",
		"_rid":                         "localaccount.documents.azure.com",
		"media":                        "//media/",
		"addresses":                    "//addresses/",
		"_dbs":                         "//dbs/",
		"writableLocations":            writable,
		"readableLocations":            readable,
		"enableMultipleWriteLocations": srv.cfg.multiWrite,
		"userReplicationPolicy":        map[string]any{"asyncReplication": false, "minReplicaSetSize": 3, "maxReplicasetSize": 4},
		"userConsistencyPolicy":        srv.consistencyPolicy(),
		"systemReplicationPolicy":      map[string]any{"minReplicaSetSize": 3, "maxReplicasetSize": 4},
		"readPolicy":                   map[string]any{"primaryReadCoefficient": 1, "secondaryReadCoefficient": 1},
		"queryEngineConfiguration":     `{"maxSqlQueryInputLength":262144,"maxJoinsPerSqlQuery":5,"maxLogicalAndPerSqlQuery":500,"maxLogicalOrPerSqlQuery":500,"maxUdfRefPerSqlQuery":10,"maxInExpressionItemsCount":16000,"queryMaxInMemorySortDocumentCount":500,"maxQueryRequestTimeoutFraction":0.9,"sqlAllowNonFiniteNumbers":false,"sqlAllowAggregateFunctions":true,"sqlAllowSubQuery":true,"sqlAllowScalarSubQuery":true,"allowNewKeywords":true,"sqlAllowLike":true,"maxSpatialQueryCells":12,"spatialMaxGeometryPointCount":256,"sqlAllowTop":true,"enableSpatialIndexing":true}`,
	}
	b, err := json.Marshal(body)
	if err != nil {
		panic(errors.New("cosmostest: marshal account: " + err.Error()))
	}
	return b
}

// consistencyPolicy is the account's userConsistencyPolicy; Bounded Staleness names its bounds.
func (srv *server) consistencyPolicy() map[string]any {
	p := map[string]any{"defaultConsistencyLevel": srv.cfg.consistency}
	if srv.cfg.consistency == "BoundedStaleness" {
		p["maxStalenessPrefix"] = srv.cfg.staleness.maxVersions
		// Whole seconds as the service reports them; a shorter test bound reads as 1, not 0.
		p["maxIntervalInSeconds"] = max(1, int64(math.Ceil(srv.cfg.staleness.maxLag.Seconds())))
	}
	return p
}

// canWrite reports whether region r accepts writes now; callers hold mu.
func (srv *server) canWrite(r *region) bool {
	return srv.cfg.multiWrite || r.index == srv.writeRegion
}
