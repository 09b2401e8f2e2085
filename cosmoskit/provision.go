package cosmoskit

import (
	"context"
	"errors"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/provision"
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
	if c.closed.Load() {
		return nil, cosmoserr.ErrClosed
	}
	db, err := provision.Database(ctx, c.cosmos, id, tp)
	return db, provisionFailure(err)
}

// ContainerResult is what EnsureContainer found and did. Drift is a value, not an error: a
// container whose changeable settings differ from the spec is usable, and EnsureContainer returns
// a nil error with it (unless the spec's OnDrift is DriftRefuse).
type ContainerResult struct {
	// Container is the container's handle (the one Client.Container returns).
	Container *azcosmos.ContainerClient
	// Created is true when this call created the container.
	Created bool
	// Drift lists the changeable settings of an existing container (indexing policy, full-text
	// policy, its own throughput when the spec declares one) that differ from the spec and were
	// left as they are: every difference with DriftReport (the default); with DriftApply, all of
	// them when one cannot be applied (a switch between manual and autoscale throughput). Empty
	// when the container matches, was created, or with DriftIgnore.
	Drift []cosmoserr.Difference
	// Applied lists the settings DriftApply replaced to match the spec (empty otherwise).
	Applied []cosmoserr.Difference
}

// EnsureContainer creates database db (without throughput) and then the container described by spec,
// each only if missing, and returns the container's handle with what was found. db and the spec are
// validated first: a *cosmoserr.ValidationError (Kind cosmoserr.ErrInvalidSpec, Field "db" or
// "ContainerSpec.<field>") is returned before any request. Database and container ids follow the
// service's rules: 1 to 255 characters (not bytes), none of / \ ? #, no trailing space. A container
// created with a partition key path known to have few distinct values (/status, /type, /country, ...)
// is logged at level Warn.
//
// If the container exists (409 Conflict, or 403 for an identity that may not create containers), it
// is read back and compared with the spec:
//   - its partition key, vector embeddings (when the spec declares some) and conflict resolution
//     policy (when the spec declares one) cannot be changed: if they differ, EnsureContainer returns
//     a *cosmoserr.MismatchError (matching cosmoserr.ErrContainerMismatch) listing them, and no handle;
//   - its indexing policy, full-text policy and own throughput (when the spec declares one) can:
//     spec.OnDrift says whether a difference is reported in ContainerResult.Drift (DriftReport, the
//     default, with a nil error), applied (DriftApply: ContainerResult.Applied), ignored
//     (DriftIgnore) or refused (DriftRefuse: a *cosmoserr.MismatchError and no handle).
//
// Other failures are a *cosmoserr.Error naming the operation, database and container (unwrapping to the
// SDK's *azcore.ResponseError). A non-nil error always comes with the zero ContainerResult.
func (c *Client) EnsureContainer(ctx context.Context, db string, spec ContainerSpec) (ContainerResult, error) {
	if msg := checkResourceID(db); msg != "" {
		return ContainerResult{}, specError("db", msg)
	}
	props, err := spec.Properties()
	if err != nil {
		return ContainerResult{}, err
	}
	tp, err := throughput("ContainerSpec", spec.ManualThroughput, spec.AutoscaleMaxThroughput)
	if err != nil {
		return ContainerResult{}, err
	}
	if spec.OnDrift < DriftReport || spec.OnDrift > DriftRefuse {
		return ContainerResult{}, specError("ContainerSpec.OnDrift", "is not DriftReport, DriftApply, DriftIgnore or DriftRefuse")
	}
	dbc, err := c.EnsureDatabase(ctx, db, DatabaseOptions{})
	if err != nil {
		return ContainerResult{}, err
	}
	cc, err := c.Container(db, spec.ID)
	if err != nil {
		return ContainerResult{}, err
	}
	created, existing, err := provision.Container(ctx, dbc, props, tp)
	switch {
	case err != nil:
		return ContainerResult{}, provisionFailure(err)
	case created:
		c.warnLowCardinality(ctx, db, spec)
		return ContainerResult{Container: cc, Created: true}, nil
	case existing == nil:
		return ContainerResult{Container: cc}, nil
	}
	if spec.ConflictResolution == (ConflictResolutionSpec{}) {
		// Not declared: whatever policy the existing container has is accepted (it may have been
		// created elsewhere with another one; on a single-write account it has no effect).
		props.ConflictResolutionPolicy = nil
	}
	res, err := c.drift(ctx, cc, db, spec, props, *existing)
	if err != nil {
		return ContainerResult{}, err
	}
	res.Container = cc
	return res, nil
}

// provisionFailure is a *provision.Failure as a *cosmoserr.Error naming its operation, database and
// container; other errors unchanged.
func provisionFailure(err error) error {
	var f *provision.Failure
	if errors.As(err, &f) {
		return provisionError(f.Op, f.Database, f.Container, f.Err)
	}
	return err
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
