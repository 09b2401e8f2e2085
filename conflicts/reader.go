package conflicts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

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
	endpoint string
	pl       runtime.Pipeline
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
	// The client's azcore options: its transport (cosmoskit's loopback or pinned-certificate
	// client, or the caller's), retry settings, telemetry and policies. Where the client has no
	// transport of cosmoskit's (a remote account without ServerCertificate), azcosmos uses its own
	// default HTTP client and this pipeline azcore's, with the same TLS verification.
	co := a.Options
	co.PerCallPolicies = slices.Clone(co.PerCallPolicies)
	co.PerRetryPolicies = slices.Concat(co.PerRetryPolicies, []policy.Policy{authPolicy{auth: a.Auth}}) // last: signs what is sent
	return &Reader{
		client: client, endpoint: strings.TrimSuffix(a.Endpoint, "/"), db: database, coll: container, opts: o,
		pl: runtime.NewPipeline("cosmoskit/conflicts", "v1", runtime.PipelineOptions{}, &co),
	}, nil
}

// Options returns the options in effect.
func (r *Reader) Options() Options { return r.opts }

// resource is the signature's resource type and link of a request (an operation value).
type resource struct{ typ, link string }

// authPolicy signs every attempt with the client's credential; it runs last among the per-retry
// policies, after cosmoskit's region routing chose the host (which the signature does not cover).
type authPolicy struct{ auth clientaccess.Authorizer }

func (p authPolicy) Do(req *policy.Request) (*http.Response, error) {
	var res resource
	req.OperationValue(&res)
	req.Raw().Header.Set(wire.HeaderVersion, wire.APIVersion)
	if err := p.auth.Authorize(req.Raw(), res.typ, res.link); err != nil {
		return nil, err
	}
	return req.Next()
}

// collLink is the container's resource link (unescaped, as signed); collPath the escaped path.
func (r *Reader) collLink() string { return "dbs/" + r.db + "/colls/" + r.coll }
func (r *Reader) collPath() string {
	return "dbs/" + url.PathEscape(r.db) + "/colls/" + url.PathEscape(r.coll)
}

// send runs one request through the pipeline and returns the response when its status is want;
// anything else is a *cosmoserr.Error for op.
func (r *Reader) send(ctx context.Context, op, method, path string, res resource, hdr map[string]string, want int) (*http.Response, error) {
	req, err := runtime.NewRequest(ctx, method, r.endpoint+"/"+path)
	if err != nil {
		return nil, cosmoserr.FromError(op, err)
	}
	req.SetOperationValue(res)
	req.Raw().Header.Set("Accept", "application/json")
	for k, v := range hdr {
		req.Raw().Header.Set(k, v)
	}
	resp, err := r.pl.Do(req)
	if err != nil {
		return nil, cosmoserr.FromError(op, err)
	}
	if resp.StatusCode != want {
		return nil, cosmoserr.FromError(op, runtime.NewResponseError(resp))
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
	resp, err := r.send(ctx, cosmoserr.OpReadConflicts, http.MethodGet, r.collPath()+"/conflicts", resource{"conflicts", r.collLink()}, hdr, http.StatusOK)
	if err != nil {
		return feedPage{}, "", err
	}
	defer resp.Body.Close()
	var p feedPage
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return feedPage{}, "", cosmoserr.FromError(cosmoserr.OpReadConflicts, fmt.Errorf("conflicts: decode the conflicts feed of %s: %w", r.collLink(), err))
	}
	return p, resp.Header.Get(wire.HeaderContinuation), nil
}

// Read returns the conflict with id (cosmoserr.ErrNotFound when there is none).
func (r *Reader) Read(ctx context.Context, id string) (Conflict, error) {
	if id == "" {
		return Conflict{}, &cosmoserr.ValidationError{Kind: cosmoserr.ErrValidation, Field: "id", Reason: "is required"}
	}
	link := r.collLink() + "/conflicts/" + id
	resp, err := r.send(ctx, cosmoserr.OpReadConflict, http.MethodGet, r.collPath()+"/conflicts/"+url.PathEscape(id), resource{"conflicts", link}, nil, http.StatusOK)
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
	link := r.collLink() + "/conflicts/" + c.ID
	resp, err := r.send(ctx, cosmoserr.OpDeleteConflict, http.MethodDelete, r.collPath()+"/conflicts/"+url.PathEscape(c.ID), resource{"conflicts", link}, hdr, http.StatusNoContent)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
