package changefeed

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
	"github.com/cosmoskit/cosmoskit-go/internal/provision"
	"github.com/cosmoskit/cosmoskit-go/internal/wire"
)

// LeaseContainer says where a processor keeps its leases: a ready container (Leases) or one
// provisioned on Start if missing (EnsureLeases). Any container partitioned by /id works; several
// processors and monitored containers can share one (lease ids start with the processor name and
// name the monitored container).
type LeaseContainer struct {
	c        *azcosmos.ContainerClient
	client   *azcosmos.Client
	database string
	id       string
}

// Leases uses c, which must exist and be partitioned by /id.
func Leases(c *azcosmos.ContainerClient) LeaseContainer { return LeaseContainer{c: c} }

// EnsureLeases provisions, on Start, database and in it the lease container id, each only if
// missing, and uses the container.
//
// The database gets no throughput; the container is partitioned by /id, with consistent indexing of
// every path but _etag and last-writer-wins conflict resolution on /_ts. client is the account's
// azcosmos client (cosmoskit.Client.Cosmos() for a cosmoskit client): package changefeed does not
// import cosmoskit, so a change feed program links no credential library it does not use. An
// existing container is used as it is if it is partitioned by /id (its other settings are not
// compared); otherwise Start fails with a *cosmoserr.MismatchError
// (cosmoserr.ErrContainerMismatch). An identity that may not create databases or containers (403,
// e.g. a Microsoft Entra data-plane role) can still use ones that exist.
func EnsureLeases(client *azcosmos.Client, database, id string) LeaseContainer {
	return LeaseContainer{client: client, database: database, id: id}
}

// validate checks Options.Leases.
func (lc LeaseContainer) validate() error {
	switch {
	case lc.c == nil && lc.client == nil:
		return invalid("Leases", "no lease container (use Leases or EnsureLeases)")
	case lc.c == nil && (lc.database == "" || lc.id == ""):
		return invalid("Leases", "EnsureLeases needs a database and a container id")
	case lc.c == nil && wire.NameProblem(lc.database) != "":
		return invalid("Leases", "EnsureLeases database id "+wire.NameProblem(lc.database))
	case lc.c == nil && wire.NameProblem(lc.id) != "":
		return invalid("Leases", "EnsureLeases container id "+wire.NameProblem(lc.id))
	}
	return nil
}

func (lc LeaseContainer) open(ctx context.Context) (*azcosmos.ContainerClient, error) {
	if lc.c != nil {
		props, err := lc.c.Read(ctx, nil)
		if err != nil {
			return nil, cosmoserr.FromError(cosmoserr.OpReadContainer, err)
		}
		if paths := props.ContainerProperties.PartitionKeyDefinition.Paths; !leasePartitioned(paths) {
			return nil, invalid("Leases", fmt.Sprintf("container %s is partitioned by %v; a lease container must be partitioned by /id", lc.c.ID(), paths))
		}
		return lc.c, nil
	}
	return lc.ensure(ctx)
}

func leasePartitioned(paths []string) bool { return len(paths) == 1 && paths[0] == "/id" }

// leaseContainerProperties is what EnsureLeases creates: cosmoskit.ContainerSpec{PartitionKeyPaths:
// []string{"/id"}, DisableTypeCompositeIndexes: true} written out (lease documents are read by
// id and by a query on the processor's id prefix; no composite index serves them).
func leaseContainerProperties(id string) azcosmos.ContainerProperties {
	return azcosmos.ContainerProperties{
		ID:                     id,
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Kind: azcosmos.PartitionKeyKindHash, Paths: []string{"/id"}, Version: 2},
		IndexingPolicy: &azcosmos.IndexingPolicy{
			Automatic:     true,
			IndexingMode:  azcosmos.IndexingModeConsistent,
			IncludedPaths: []azcosmos.IncludedPath{{Path: "/*"}},
			ExcludedPaths: []azcosmos.ExcludedPath{{Path: `/"_etag"/?`}},
		},
		ConflictResolutionPolicy: &azcosmos.ConflictResolutionPolicy{Mode: azcosmos.ConflictResolutionModeLastWriteWins, ResolutionPath: "/_ts"},
	}
}

// ensure creates the database and the lease container if missing and checks an existing
// container's partition key.
func (lc LeaseContainer) ensure(ctx context.Context) (*azcosmos.ContainerClient, error) {
	db, err := provision.Database(ctx, lc.client, lc.database, nil)
	if err != nil {
		return nil, provisionFailure(err)
	}
	cc, err := db.NewContainer(lc.id)
	if err != nil {
		return nil, err
	}
	_, existing, err := provision.Container(ctx, db, leaseContainerProperties(lc.id), nil)
	if err != nil {
		return nil, provisionFailure(err)
	}
	if existing != nil && !leasePartitioned(existing.PartitionKeyDefinition.Paths) {
		return nil, &cosmoserr.MismatchError{Database: lc.database, Container: lc.id, Differences: []cosmoserr.Difference{
			{Field: "PartitionKeyPaths", Want: "/id", Have: strings.Join(existing.PartitionKeyDefinition.Paths, ",")}}}
	}
	return cc, nil
}

// provisionFailure is a *provision.Failure as a *cosmoserr.Error for its operation, wrapped with
// the lease container it was for; other errors unchanged.
func provisionFailure(err error) error {
	var f *provision.Failure
	if !errors.As(err, &f) {
		return err
	}
	return fmt.Errorf("changefeed: lease container %s/%s: %w", f.Database, f.Container, cosmoserr.FromError(f.Op, f.Err))
}
