package throughput

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
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

// GlobalGroup is a group whose budget is shared by every process that runs a GlobalGroup of the
// same name over the same control container (the Java SDK's global throughput control): each
// process renews a record every Renew and takes an equal share of the target among the records
// renewed within Expiry. Until Run has read the control container once, the process's share is the
// whole target. Requests join it like a Group: WithGroup(ctx, gg.Group).
type GlobalGroup struct {
	*Group
	gopts GlobalOptions
	total float64
}

// controlRecord is one process's record in the control container.
type controlRecord struct {
	ID        string `json:"id"`
	GroupID   string `json:"groupId"`
	RenewedAt int64  `json:"renewedAt"` // unix milliseconds
	TTL       int    `json:"ttl"`       // seconds
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
	return &GlobalGroup{Group: g, gopts: gopts, total: g.Target()}, nil
}

// GlobalOptions returns the global options in effect.
func (gg *GlobalGroup) GlobalOptions() GlobalOptions { return gg.gopts }

// Total returns the target shared by all processes.
func (gg *GlobalGroup) Total() float64 { return gg.total }

// Run renews this process's record and its share every Renew until ctx ends, then deletes the
// record (best effort, within a second) and returns nil. A failed renewal keeps the last share
// and is retried at the next period; Run returns an error only for a control container that
// does not exist.
func (gg *GlobalGroup) Run(ctx context.Context) error {
	t := time.NewTicker(gg.gopts.Renew)
	defer t.Stop()
	for {
		if err := gg.renew(ctx); errors.Is(err, cosmoserr.ErrNotFound) {
			return err
		}
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

// renew writes this process's record, reads the group's, and takes an equal share of the total
// among the records renewed within Expiry (this one included).
func (gg *GlobalGroup) renew(ctx context.Context) error {
	now := time.Now()
	rec := controlRecord{ID: gg.gopts.ClientID, GroupID: gg.opts.Name, RenewedAt: now.UnixMilli(), TTL: int(gg.gopts.Expiry.Seconds() + 0.999)}
	body, _ := json.Marshal(rec)
	pk := azcosmos.NewPartitionKeyString(gg.opts.Name)
	if _, err := gg.gopts.Control.UpsertItem(ctx, pk, body, nil); err != nil {
		return cosmoserr.FromError(cosmoserr.OpUpsertItem, err)
	}
	q := gg.gopts.Control.NewQueryItemsPager("SELECT c.id, c.renewedAt FROM c WHERE c.groupId = @g", pk,
		&azcosmos.QueryOptions{QueryParameters: []azcosmos.QueryParameter{{Name: "@g", Value: gg.opts.Name}}})
	live := 0
	for q.More() {
		page, err := q.NextPage(ctx)
		if err != nil {
			return cosmoserr.FromError(cosmoserr.OpQueryItems, err)
		}
		for _, it := range page.Items {
			var r controlRecord
			if json.Unmarshal(it, &r) == nil && now.Sub(time.UnixMilli(r.RenewedAt)) <= gg.gopts.Expiry {
				live++
			}
		}
	}
	gg.setTarget(gg.total / float64(max(live, 1)))
	return nil
}
