package cosmoskit

import (
	"context"
	"errors"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// EnsureDatabase creates database id if it does not exist and returns its handle. An existing database
// (409 Conflict) is returned as is; its throughput is not changed. If the identity may not create
// databases (403, e.g. a Microsoft Entra data-plane role), an existing database is still returned.
// The zero DatabaseOptions is a database without shared throughput.
//
// Errors: a *cosmoserr.ValidationError (Kind cosmoserr.ErrInvalidSpec) for a bad id (1 to 255 characters, none of
// / \ ? #, no trailing space) or throughput, before any request; cosmoserr.ErrClosed;
// otherwise a *cosmoserr.Error (matching cosmoserr.ErrUnauthorized and the other sentinels, and unwrapping to the SDK's
// *azcore.ResponseError), wrapped with the database id.
func (c *Client) EnsureDatabase(ctx context.Context, id string, opts DatabaseOptions) (*azcosmos.DatabaseClient, error) {
	if msg := checkResourceID(id); msg != "" {
		return nil, specError("id", msg)
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
// each only if missing, and returns the container's handle. db and the spec are validated first: a *cosmoserr.ValidationError
// (Kind cosmoserr.ErrInvalidSpec, Field "db" or "ContainerSpec.<field>") is returned before any request. Database and
// container ids follow the service's rules: 1 to 255 characters (not bytes), none of / \ ? #, no trailing space. A container created with a partition key path
// known to have few distinct values (/status, /type, /country, ...) is logged at level Warn.
//
// If the container exists (409 Conflict, or 403 for an identity that may not create containers), it
// is read back and compared with the spec:
//   - its partition key, vector embeddings (when the spec declares some) and conflict resolution
//     policy (when the spec declares one) cannot be changed: if they differ, EnsureContainer returns
//     no handle and a *cosmoserr.MismatchError (matching cosmoserr.ErrContainerMismatch) listing them;
//   - its indexing policy, full-text policy and own throughput (when the spec declares one) can:
//     spec.OnDrift says whether a difference is reported (the default: the handle is returned with
//     a *cosmoserr.MismatchError listing the differing fields), applied or ignored.
//
// Other failures are a *cosmoserr.Error naming the operation, database and container (unwrapping to the
// SDK's *azcore.ResponseError).
func (c *Client) EnsureContainer(ctx context.Context, db string, spec ContainerSpec) (*azcosmos.ContainerClient, error) {
	if msg := checkResourceID(db); msg != "" {
		return nil, specError("db", msg)
	}
	props, err := spec.Properties()
	if err != nil {
		return nil, err
	}
	tp, err := throughput("ContainerSpec", spec.ManualThroughput, spec.AutoscaleMaxThroughput)
	if err != nil {
		return nil, err
	}
	if spec.OnDrift < DriftReport || spec.OnDrift > DriftIgnore {
		return nil, specError("ContainerSpec.OnDrift", "is not DriftReport, DriftApply or DriftIgnore")
	}
	dbc, err := c.EnsureDatabase(ctx, db, DatabaseOptions{})
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
		c.warnLowCardinality(ctx, db, spec)
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
		usable, err := c.drift(ctx, cc, db, spec, props, *resp.ContainerProperties)
		if err != nil && !usable {
			return nil, err
		}
		return cc, err // err: changeable settings differ; the container is usable
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

// statusOf returns the HTTP status of an SDK error, or 0.
func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}
