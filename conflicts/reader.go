package conflicts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/cosmoskit"
	"github.com/cosmoskit/cosmoskit-go/internal/clientaccess"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Options configure a Reader. The zero value is the documented default of each field; Reader.Options
// returns the options in effect.
type Options struct {
	// PageSize is the number of conflicts asked for per request (x-ms-max-item-count), 1 or more.
	// Default: 0, the service's page size (100).
	PageSize int32
}

// Reader reads and deletes the conflicts feed of one container. It is safe for concurrent use and
// holds no connection of its own: requests go through the cosmoskit Client's transport.
type Reader struct {
	client   *cosmoskit.Client
	cc       clientaccess.Container
	db, coll string
	opts     Options

	pkMu    sync.Mutex
	pkPaths []string // the container's partition key paths, read on the first Delete that needs them
}

// New returns a Reader of the conflicts of container in database, sending requests with client's
// credential (key or Microsoft Entra ID token), transport and policies. It does no I/O.
//
// Errors: a *cosmoserr.ValidationError (cosmoserr.ErrValidation) for an empty id or a negative page size;
// cosmoserr.ErrNoCredential for a client made by cosmoskit.NewFromClient; cosmoserr.ErrClosed for a closed
// client.
func New(client *cosmoskit.Client, database, container string, o Options) (*Reader, error) {
	switch {
	case client == nil:
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "client", Reason: "is nil"}
	case database == "":
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "database", Reason: "is required"}
	case container == "":
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "container", Reason: "is required"}
	}
	if o.PageSize < 0 {
		return nil, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Options.PageSize", Reason: fmt.Sprintf("is %d; use 0 for the service's page size, or a positive number", o.PageSize)}
	}
	a, err := clientaccess.Of(client)
	if err != nil {
		return nil, err
	}
	if a.Auth == nil {
		return nil, cosmoserr.ErrNoCredential
	}
	// Requests go through the client's azcore options (its transport, retry settings, telemetry
	// and policies), signed with its credential.
	return &Reader{
		client: client, db: database, coll: container, opts: o,
		cc: clientaccess.NewContainer(a, "cosmoskit/conflicts", database, container),
	}, nil
}

// Options returns the options in effect.
func (r *Reader) Options() Options { return r.opts }

// send runs one request for the container's path followed by suffix and returns the response
// when its status is want; anything else is a *cosmoserr.Error for op.
func (r *Reader) send(ctx context.Context, op, method, suffix string, res clientaccess.Resource, hdr map[string]string, want int) (*http.Response, error) {
	resp, err := r.cc.Send(ctx, method, suffix, res, hdr, want)
	if err != nil {
		return nil, cosmoserr.FromError(op, err)
	}
	return resp, nil
}

// All returns every conflict of the container, a page at a time (Options.PageSize), in the
// order the service lists them. Iteration stops at the first error, which is yielded last: a
// *cosmoserr.Error (cosmoserr.ErrNotFound for a missing container). Conflicts deleted while
// iterating are not listed again; conflicts recorded meanwhile may or may not be.
func (r *Reader) All(ctx context.Context) iter.Seq2[Conflict, error] {
	return func(yield func(Conflict, error) bool) {
		cont := ""
		for {
			page, next, err := r.page(ctx, cont)
			if err != nil {
				yield(Conflict{}, err)
				return
			}
			for _, w := range page.Conflicts {
				if !yield(w.conflict(), nil) {
					return
				}
			}
			if next == "" {
				return
			}
			cont = next
		}
	}
}

// page reads one page of the feed.
func (r *Reader) page(ctx context.Context, cont string) (feedPage, string, error) {
	hdr := map[string]string{}
	if r.opts.PageSize > 0 {
		hdr[wire.HeaderMaxItemCount] = strconv.Itoa(int(r.opts.PageSize))
	}
	if cont != "" {
		hdr[wire.HeaderContinuation] = cont
	}
	resp, err := r.send(ctx, cosmoserr.OpReadConflicts, http.MethodGet, "/conflicts", clientaccess.Resource{Type: "conflicts", Link: r.cc.Link()}, hdr, http.StatusOK)
	if err != nil {
		return feedPage{}, "", err
	}
	defer resp.Body.Close()
	var p feedPage
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return feedPage{}, "", cosmoserr.FromError(cosmoserr.OpReadConflicts, fmt.Errorf("conflicts: decode the conflicts feed of %s: %w", r.cc.Link(), err))
	}
	return p, resp.Header.Get(wire.HeaderContinuation), nil
}

// Read returns the conflict with id (cosmoserr.ErrNotFound when there is none).
func (r *Reader) Read(ctx context.Context, id string) (Conflict, error) {
	if id == "" {
		return Conflict{}, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "id", Reason: "is required"}
	}
	link := r.cc.Link() + "/conflicts/" + id
	resp, err := r.send(ctx, cosmoserr.OpReadConflict, http.MethodGet, "/conflicts/"+url.PathEscape(id), clientaccess.Resource{Type: "conflicts", Link: link}, nil, http.StatusOK)
	if err != nil {
		return Conflict{}, err
	}
	defer resp.Body.Close()
	var w wireConflict
	if err := json.NewDecoder(resp.Body).Decode(&w); err != nil {
		return Conflict{}, cosmoserr.FromError(cosmoserr.OpReadConflict, fmt.Errorf("conflicts: decode conflict %q: %w", id, err))
	}
	return w.conflict(), nil
}

// Delete removes c from the feed, once the application has merged it (cosmoserr.ErrNotFound when
// it is already gone). When c has Content, the request carries the item's partition key, as the
// .NET SDK's Conflicts.DeleteAsync does (read from Content with the container's partition key
// paths, which the first such Delete reads once); a losing delete has no content and goes without.
// Whether the service requires the partition key is unverified; cosmostest accepts both.
func (r *Reader) Delete(ctx context.Context, c Conflict) error {
	if c.ID == "" {
		return &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "Conflict.ID", Reason: "is required: pass a Conflict from All or Read"}
	}
	hdr := map[string]string{}
	if len(c.Content) > 0 {
		pk, err := r.partitionKeyOf(ctx, c.Content)
		if err != nil {
			return err
		}
		hdr[wire.HeaderPartitionKey] = pk
	}
	link := r.cc.Link() + "/conflicts/" + c.ID
	resp, err := r.send(ctx, cosmoserr.OpDeleteConflict, http.MethodDelete, "/conflicts/"+url.PathEscape(c.ID), clientaccess.Resource{Type: "conflicts", Link: link}, hdr, http.StatusNoContent)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
