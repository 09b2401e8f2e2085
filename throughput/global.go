package throughput

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// GlobalOptions configure a GlobalGroup. The zero value of each field is its documented default;
// GlobalGroup.GlobalOptions returns the options in effect.
type GlobalOptions struct {
	// Control is the control container the processes share: partitioned on /groupId, with time
	// to live enabled (DefaultTimeToLive -1) so that the records of processes that stopped
	// without cleaning up expire. Required.
	Control *azcosmos.ContainerClient
	// ClientID names this process in the control container. Default: a random id.
	ClientID string
	// Renew is how often this process renews its record and recomputes its share. Default: 5 s
	// (the Java SDK's global throughput control).
	Renew time.Duration
	// Expiry is how long a record counts without being renewed (and its time to live). At least
	// twice Renew. Default: 11 s (as the Java SDK).
	Expiry time.Duration
}

// GlobalGroup is a group whose budget is shared across processes (the Java SDK's global
// throughput control).
//
// Every process that runs a GlobalGroup of the same name over the same control container shares it.
// Each process renews a record every Renew, naming the share it takes, and takes an equal share of
// the target among the records renewed within Expiry (n of them, this one included), but never more
// than the target less the shares the others' records name. A process that joins takes what is left
// and waits for the others to give up theirs at their next renewal, so the shares in effect never
// add up to more than the target. While below its equal share it renews every fifth of Renew, so
// within 1.2 Renew of a join every process has its equal share. Until Run has renewed once
// (WaitJoined), the process's share is 0 and requests in the group wait. Requests join it like a
// Group: WithGroup(ctx, gg.Group).
type GlobalGroup struct {
	*Group
	gopts  GlobalOptions
	total  float64
	joined chan struct{} // closed by the first renewal
	ended  chan struct{} // closed when Run returns
	runErr error         // Run's error, set before ended is closed
	once   sync.Once
}

// controlRecord is one process's record in the control container.
type controlRecord struct {
	ID        string  `json:"id"`
	GroupID   string  `json:"groupId"`
	RenewedAt int64   `json:"renewedAt"` // unix milliseconds
	TTL       int     `json:"ttl"`       // seconds
	Share     float64 `json:"share"`     // RU/s the process takes; 0 while it joins
}

// NewGlobalGroup returns a global group: NewGroup's group (the target it resolves is the total
// shared by all processes), with gopts. Call Run to take part. Errors: NewGroup's, and a
// *cosmoserr.ValidationError for a missing control container, a negative period, or an expiry
// shorter than twice the renewal period.
func NewGlobalGroup(ctx context.Context, c *azcosmos.ContainerClient, o GroupOptions, gopts GlobalOptions) (*GlobalGroup, error) {
	switch {
	case gopts.Control == nil:
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "GlobalOptions.Control", Reason: "is required"}
	case gopts.Renew < 0 || gopts.Expiry < 0:
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "GlobalOptions.Renew", Reason: "is negative"}
	}
	if gopts.Renew == 0 {
		gopts.Renew = 5 * time.Second
	}
	if gopts.Expiry == 0 {
		gopts.Expiry = 11 * time.Second
	}
	if gopts.Expiry < 2*gopts.Renew {
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "GlobalOptions.Expiry", Reason: "is shorter than twice Renew"}
	}
	if gopts.ClientID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		gopts.ClientID = hex.EncodeToString(b[:])
	}
	g, err := NewGroup(ctx, c, o)
	if err != nil {
		return nil, err
	}
	gg := &GlobalGroup{Group: g, gopts: gopts, total: g.Target(), joined: make(chan struct{}), ended: make(chan struct{})}
	g.setTarget(0) // until the first renewal
	return gg, nil
}

// GlobalOptions returns the global options in effect.
func (gg *GlobalGroup) GlobalOptions() GlobalOptions { return gg.gopts }

// Total returns the target shared by all processes.
func (gg *GlobalGroup) Total() float64 { return gg.total }

// WaitJoined waits until Run has renewed this process's record once (its share is set) and
// returns nil; or returns Run's error if Run returned first, or ctx's error.
func (gg *GlobalGroup) WaitJoined(ctx context.Context) error {
	select {
	case <-gg.joined:
		return nil
	case <-gg.ended:
		if gg.runErr != nil {
			return gg.runErr
		}
		return context.Canceled
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run renews this process's record and its share every Renew until ctx ends, then deletes the
// record (best effort, within a second) and returns nil. A failed renewal keeps the last share
// (or a lower one it computed) and is retried at the next period; Run returns an error only for
// a control container that does not exist. Call it once.
func (gg *GlobalGroup) Run(ctx context.Context) (err error) {
	defer func() {
		gg.runErr = err
		close(gg.ended)
	}()
	t := time.NewTimer(gg.gopts.Renew)
	defer t.Stop()
	for {
		short, err := gg.renew(ctx)
		if errors.Is(err, cosmoserr.ErrNotFound) {
			return err
		}
		// Below its equal share (joining while others hold the budget), a process looks again
		// every fifth of Renew, so it takes what they give up within that, not a whole Renew.
		next := gg.gopts.Renew
		if short {
			next /= shortRenewDivisor
		}
		t.Reset(next)
		select {
		case <-ctx.Done():
			del, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			_, _ = gg.gopts.Control.DeleteItem(del, azcosmos.NewPartitionKeyString(gg.opts.Name), gg.gopts.ClientID, nil)
			cancel()
			return nil
		case <-t.C:
		}
	}
}

// shortRenewDivisor: a process below its equal share renews every Renew/shortRenewDivisor.
const shortRenewDivisor = 5

// renew reads the group's records and takes this process's share: an equal share of the total
// among the records renewed within Expiry (this one included), at most the total less the shares
// the others' records name; then writes its record naming it. The first renewal first writes a
// record naming 0, so that processes joining at the same time count each other. short reports a
// share below the equal one.
func (gg *GlobalGroup) renew(ctx context.Context) (short bool, err error) {
	pk := azcosmos.NewPartitionKeyString(gg.opts.Name)
	write := func(share float64) error {
		rec := controlRecord{ID: gg.gopts.ClientID, GroupID: gg.opts.Name, RenewedAt: time.Now().UnixMilli(),
			TTL: int(gg.gopts.Expiry.Seconds() + 0.999), Share: share}
		body, _ := json.Marshal(rec)
		if _, err := gg.gopts.Control.UpsertItem(ctx, pk, body, nil); err != nil {
			return cosmoserr.FromError(cosmoserr.OpUpsertItem, err)
		}
		return nil
	}
	first := false
	select {
	case <-gg.joined:
	default:
		first = true
		if err := write(0); err != nil {
			return false, err
		}
	}
	q := gg.gopts.Control.NewQueryItemsPager("SELECT c.id, c.renewedAt, c.share FROM c WHERE c.groupId = @g", pk,
		&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@g", Value: gg.opts.Name}}})
	now := time.Now()
	live, others := 1, 0.0
	for q.More() {
		page, err := q.NextPage(ctx)
		if err != nil {
			return false, cosmoserr.FromError(cosmoserr.OpQueryItems, err)
		}
		for _, it := range page.Items {
			var r controlRecord
			if json.Unmarshal(it, &r) == nil && r.ID != gg.gopts.ClientID && now.Sub(time.UnixMilli(r.RenewedAt)) <= gg.gopts.Expiry {
				live++
				others += max(r.Share, 0)
			}
		}
	}
	equal := gg.total / float64(live)
	share := max(min(equal, gg.total-others), 0)
	gg.setTarget(min(share, gg.Target())) // giving up budget needs no record
	if err := write(share); err != nil {
		return false, err
	}
	gg.setTarget(share)
	if first {
		gg.once.Do(func() { close(gg.joined) })
	}
	return share < equal*0.999, nil
}
