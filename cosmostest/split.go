package cosmostest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/cosmoskit/cosmoskit-go/internal/epk"
)

// SplitRange splits the physical partition rangeID of a container into two children at the
// middle of its effective-partition-key range, as the service does when a partition grows:
//
//   - the children get new ids (one more than the largest id the container has ever used, and
//     the next), list their ancestors in "parents", and continue the parent's LSN;
//   - the parent's items move to the child whose range holds their partition key;
//   - the pkranges feed etag changes, so a client refreshing its routing map sees the children;
//   - requests that still name the old range id (x-ms-documentdb-partitionkeyrangeid on queries,
//     such as ReadManyItems sends) get 410 Gone with sub-status 1002 (PartitionKeyRangeGone),
//     which makes the SDK refresh its pkranges and retry. Point operations route by partition
//     key and are not affected.
//
// With replication (WithReplicationLag), every region's copy first applies all of the parent's
// pending writes; the other regions' copies of the children are then copied from the home
// region's children, each child with a new replication log.
//
// With WithThroughputLimits the container's RU/s is then split across one more partition.
// Errors: unknown database, container or range, or a range too narrow to split.
func (s *Server) SplitRange(database, container, rangeID string) error {
	srv := s.s
	srv.mu.Lock()
	defer srv.mu.Unlock()
	c, err := srv.container(database, container)
	if err != nil {
		return fmt.Errorf("cosmostest: SplitRange: %s", asStatus(err).message)
	}
	i := slices.IndexFunc(c.ranges, func(r *pkRange) bool { return r.id == rangeID })
	if i < 0 {
		ids := make([]string, len(c.ranges))
		for j, r := range c.ranges {
			ids[j] = r.id
		}
		return fmt.Errorf("cosmostest: SplitRange: container %s/%s has no partition key range %q (ranges: %q)", database, container, rangeID, ids)
	}
	parent := c.ranges[i]
	lo, hi := epk.Range{MinInclusive: parent.min, MaxExclusive: parent.max}.Split(c.pk.Kind, c.pk.Version)
	if hi.MinInclusive == hi.MaxExclusive {
		return errors.New("cosmostest: SplitRange: range " + rangeID + " is too narrow to split")
	}
	srv.splitRange(c, i, lo, hi)
	return nil
}

// SplitRangeAt splits the physical partition holding the effective partition key at (hex, as
// the pkranges feed writes boundaries) into [min, at) and [at, max), as SplitRange does
// otherwise. A boundary inside one first-level key's range, such as the EPK of a full
// hierarchical key, makes that key's prefix span two physical partitions, as a large tenant
// does on the service. Errors: unknown database or container, or at already a boundary.
func (s *Server) SplitRangeAt(database, container, at string) error {
	srv := s.s
	srv.mu.Lock()
	defer srv.mu.Unlock()
	c, err := srv.container(database, container)
	if err != nil {
		return fmt.Errorf("cosmostest: SplitRangeAt: %s", asStatus(err).message)
	}
	i := slices.IndexFunc(c.ranges, func(r *pkRange) bool {
		return (epk.Range{MinInclusive: r.min, MaxExclusive: r.max}).Contains(at)
	})
	if i < 0 || c.ranges[i].min == at {
		return errors.New("cosmostest: SplitRangeAt: the boundary is not strictly inside a range")
	}
	parent := c.ranges[i]
	srv.splitRange(c, i, epk.Range{MinInclusive: parent.min, MaxExclusive: at}, epk.Range{MinInclusive: at, MaxExclusive: parent.max})
	return nil
}

// splitRange replaces c.ranges[i] by the children lo and hi (see SplitRange); srv.mu is held.
func (srv *server) splitRange(c *container, i int, lo, hi epk.Range) {
	parent := c.ranges[i]
	srv.catchUpAll(c) // every region's copy reaches the parent's last write before the split
	next := nextRangeID(c)
	ancestors := append(slices.Clone(parent.parents), parent.id)
	ts := srv.now().Unix()
	child := func(id int, r epk.Range) *pkRange {
		return &pkRange{
			id: strconv.Itoa(id), min: r.MinInclusive, max: r.MaxExclusive, parents: ancestors,
			lsn: parent.lsn, items: map[string]*item{}, ts: ts, progress: slices.Clone(parent.progress),
		}
	}
	c.ranges = slices.Replace(slices.Clone(c.ranges), i, i+1, child(next, lo), child(next+1, hi))
	for k, it := range parent.items {
		c.rangeFor(it.pk).items[k] = it
	}
	for k, h := range parent.heads { // multi-write: concurrent versions and deletes
		ch := c.rangeFor(h.pk)
		if ch.heads == nil {
			ch.heads = map[string]*headSet{}
		}
		ch.heads[k] = h
	}
	c.rangeET++
	delete(srv.tput.buckets, parent)
	if c.views != nil {
		// The other regions' copies of the children are rebuilt from the home copy's children.
		for _, v := range c.views {
			if v == nil {
				continue
			}
			delete(srv.tput.buckets, v.ranges[i])
			v.ranges = slices.Replace(slices.Clone(v.ranges), i, i+1, cloneRange(c.ranges[i]), cloneRange(c.ranges[i+1]))
		}
		srv.linkCopies(c, i)
		srv.linkCopies(c, i+1)
	}
}

// nextRangeID is one more than the largest numeric range id the container has used, current or
// ancestor (ancestors are listed in every descendant's parents).
func nextRangeID(c *container) int {
	n := -1
	for _, r := range c.ranges {
		for _, id := range append([]string{r.id}, r.parents...) {
			if v, err := strconv.Atoi(id); err == nil && v > n {
				n = v
			}
		}
	}
	return n + 1
}
