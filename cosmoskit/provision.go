package cosmoskit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// EnsureDatabase creates database id if it does not exist and returns its handle. An existing database
// (409 Conflict) is returned as is; its throughput is not changed. If the identity may not create
// databases (403, e.g. a Microsoft Entra data-plane role), an existing database is still returned.
// opts may be nil (no shared throughput).
//
// Errors: a *cosmoserr.ValidationError (Kind cosmoserr.ErrInvalidSpec) for a bad id or throughput, before any request; cosmoserr.ErrClosed;
// otherwise an *Error (matching cosmoserr.ErrUnauthorized and the other sentinels, and unwrapping to the SDK's
// *azcore.ResponseError), wrapped with the database id.
func (c *Client) EnsureDatabase(ctx context.Context, id string, opts *DatabaseOptions) (*azcosmos.DatabaseClient, error) {
	if msg := checkResourceID(id); msg != "" {
		return nil, specError("id", msg)
	}
	if opts == nil {
		opts = &DatabaseOptions{}
	}
	tp, err := throughput("DatabaseOptions", opts.ManualThroughput, opts.AutoscaleMaxThroughput)
	if err != nil {
		return nil, err
	}
	db, err := c.Database(id)
	if err != nil {
		return nil, err
	}
	_, err = c.cosmos.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: id}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: tp})
	switch status := statusOf(err); {
	case err == nil, status == http.StatusConflict:
		return db, nil
	case status == http.StatusForbidden:
		if _, rerr := db.Read(ctx, nil); rerr == nil {
			return db, nil
		}
	}
	return nil, provisionError(cosmoserr.OpCreateDatabase, id, "", err)
}

// EnsureContainer creates database db (without throughput) and then the container described by spec,
// each only if missing, and returns the container's handle. The spec is validated first: a
// *cosmoserr.ValidationError (Kind cosmoserr.ErrInvalidSpec) is returned before any request.
//
// If the container exists (409 Conflict, or 403 for an identity that may not create containers), it
// is read back and returned without changes, unless its partition key, vector embeddings or
// conflict resolution policy differ from the spec; those cannot be changed, so EnsureContainer returns an error matching
// cosmoserr.ErrContainerMismatch. Other failures are an *Error naming the operation, database and container
// (unwrapping to the SDK's *azcore.ResponseError).
func (c *Client) EnsureContainer(ctx context.Context, db string, spec ContainerSpec) (*azcosmos.ContainerClient, error) {
	props, err := spec.Properties()
	if err != nil {
		return nil, err
	}
	tp, err := throughput("ContainerSpec", spec.ManualThroughput, spec.AutoscaleMaxThroughput)
	if err != nil {
		return nil, err
	}
	dbc, err := c.EnsureDatabase(ctx, db, nil)
	if err != nil {
		return nil, err
	}
	cc, err := c.Container(db, spec.ID)
	if err != nil {
		return nil, err
	}
	_, err = dbc.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: tp})
	status := statusOf(err)
	if err == nil {
		return cc, nil
	}
	if status != http.StatusConflict && status != http.StatusForbidden {
		return nil, provisionError(cosmoserr.OpCreateContainer, db, spec.ID, err)
	}
	resp, rerr := cc.Read(ctx, nil)
	if rerr != nil {
		if status == http.StatusForbidden {
			return nil, provisionError(cosmoserr.OpCreateContainer, db, spec.ID, err)
		}
		return nil, provisionError(cosmoserr.OpReadContainer, db, spec.ID, rerr)
	}
	if resp.ContainerProperties != nil {
		if spec.ConflictResolution == (ConflictResolutionSpec{}) {
			// Not declared: whatever policy the existing container has is accepted (it may have been
			// created elsewhere with another one; on a single-write account it has no effect).
			props.ConflictResolutionPolicy = nil
		}
		if msg := mismatch(props, *resp.ContainerProperties); msg != "" {
			return nil, fmt.Errorf("%w: container %q in database %q: %s", cosmoserr.ErrContainerMismatch, spec.ID, db, msg)
		}
	}
	return cc, nil
}

// provisionError is err as a *cosmoserr.Error for op that names the database and container once
// (the container id of a create travels in the body, so the request path does not name it).
func provisionError(op, db, container string, err error) error {
	err = cosmoserr.FromError(op, err)
	var e *cosmoserr.Error
	if errors.As(err, &e) {
		if e.Database == "" {
			e.Database = db
		}
		if e.Container == "" {
			e.Container = container
		}
	}
	return err
}

// mismatch describes an immutable property of an existing container that differs from want.
func mismatch(want, got azcosmos.ContainerProperties) string {
	if !slices.Equal(want.PartitionKeyDefinition.Paths, got.PartitionKeyDefinition.Paths) {
		return fmt.Sprintf("it has partition key %q, the spec asks for %q; a partition key cannot be changed, so create a new container and copy the data",
			got.PartitionKeyDefinition.Paths, want.PartitionKeyDefinition.Paths)
	}
	if got.VectorEmbeddingPolicy != nil && want.VectorEmbeddingPolicy != nil {
		g, w := got.VectorEmbeddingPolicy.VectorEmbeddings, want.VectorEmbeddingPolicy.VectorEmbeddings
		if !slices.Equal(g, w) {
			return fmt.Sprintf("it has vector embeddings %+v, the spec asks for %+v; a vector policy cannot be changed", g, w)
		}
	}
	return conflictPolicyMismatch(want.ConflictResolutionPolicy, got.ConflictResolutionPolicy)
}

// statusOf returns the HTTP status of an SDK error, or 0.
func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}
