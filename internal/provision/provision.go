// Package provision creates a database or a container if it is missing, the one way cosmoskit's
// EnsureDatabase / EnsureContainer and changefeed's EnsureLeases do it: a create, where 409
// Conflict means it exists and 403 Forbidden (an identity that may not create resources, e.g. a
// Microsoft Entra data-plane role) means it must exist and is read instead. A failed request is a
// *Failure naming the operation, database and container; the public package that called turns it
// into its error model (internal packages import no public one).
package provision

import (
	"context"
	"errors"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// Failure is a request of Database or Container that failed: its operation (a wire.Op name), the
// database and container it was for, and the SDK's error.
type Failure struct {
	Op, Database, Container string
	Err                     error
}

func (f *Failure) Error() string {
	return f.Op + " " + f.Database + "/" + f.Container + ": " + f.Err.Error()
}

// Unwrap returns the SDK's error.
func (f *Failure) Unwrap() error { return f.Err }

func fail(op, db, container string, err error) error {
	return &Failure{Op: op, Database: db, Container: container, Err: err}
}

// Database creates database id (with throughput tp, nil for none) unless it exists, and returns
// its handle. An existing database is returned as it is (its throughput is not changed).
func Database(ctx context.Context, client *azcosmos.Client, id string, tp *azcosmos.ThroughputProperties) (*azcosmos.DatabaseClient, error) {
	db, err := client.NewDatabase(id)
	if err != nil {
		return nil, err
	}
	_, err = client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: id}, &azcosmos.CreateDatabaseOptions{ThroughputProperties: tp})
	switch status := Status(err); {
	case err == nil, status == http.StatusConflict:
		return db, nil
	case status == http.StatusForbidden:
		if _, rerr := db.Read(ctx, nil); rerr == nil {
			return db, nil
		}
	}
	return nil, fail(wire.OpCreateDatabase, id, "", err)
}

// Container creates the container props describes in db (with throughput tp, nil for none)
// unless it exists. created says whether this call created it; for a container that existed,
// existing is its properties as read back (nil if the answer had none), for the caller to compare
// with what it asked for.
func Container(ctx context.Context, db *azcosmos.DatabaseClient, props azcosmos.ContainerProperties, tp *azcosmos.ThroughputProperties) (created bool, existing *azcosmos.ContainerProperties, err error) {
	_, err = db.CreateContainer(ctx, props, &azcosmos.CreateContainerOptions{ThroughputProperties: tp})
	if err == nil {
		return true, nil, nil
	}
	status := Status(err)
	if status != http.StatusConflict && status != http.StatusForbidden {
		return false, nil, fail(wire.OpCreateContainer, db.ID(), props.ID, err)
	}
	cc, cerr := db.NewContainer(props.ID)
	if cerr != nil {
		return false, nil, cerr
	}
	resp, rerr := cc.Read(ctx, nil)
	if rerr != nil {
		if status == http.StatusForbidden {
			return false, nil, fail(wire.OpCreateContainer, db.ID(), props.ID, err)
		}
		return false, nil, fail(wire.OpReadContainer, db.ID(), props.ID, rerr)
	}
	return false, resp.ContainerProperties, nil
}

// Status returns the HTTP status of an SDK error, or 0.
func Status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}
