package cosmoserr

import "errors"

// Refusals: the Kind of a [*ValidationError], found before anything was sent. Each also matches
// ErrValidation.
var (
	// ErrInvalidID: an id the gateway cannot address by id (empty, longer than 1,023 bytes, or with
	// a character it refuses or rewrites in a path).
	ErrInvalidID = errors.New("cosmoskit: invalid id")
	// ErrInvalidPartitionKey: a partition key with the wrong number of components, a value of
	// another type, an unsafe number, or a value longer than the container allows.
	ErrInvalidPartitionKey = errors.New("cosmoskit: invalid partition key")
	// ErrItemTooLarge: the serialized item exceeds 2 MB.
	ErrItemTooLarge = errors.New("cosmoskit: item too large")
	// ErrNestingTooDeep: the item nests objects and arrays more than 128 levels deep.
	ErrNestingTooDeep = errors.New("cosmoskit: item nesting too deep")
	// ErrUnsafeNumber: a number Cosmos DB would silently round, because its JSON text does not
	// survive a float64 round trip (an integer beyond ±2^53, a 19-digit decimal, an underflow or
	// overflow); encode it as a string (`json:",string"`).
	ErrUnsafeNumber = errors.New("cosmoskit: number would be rounded")
	// ErrInvalidQuery: a query template with a literal value, OFFSET, an unsafe field name, or
	// without a partition key and without CrossPartition.
	ErrInvalidQuery = errors.New("cosmoskit: invalid query")
	// ErrInvalidPatch: more than 10 patch operations, or one on id, type, schemaVersion or a system
	// property.
	ErrInvalidPatch = errors.New("cosmoskit: invalid patch")
	// ErrInvalidSessionToken: a session token that is not in the service's format, or longer than
	// the 16 KiB the library accepts (a token may come from an end user's cookie or header).
	ErrInvalidSessionToken = errors.New("cosmoskit: invalid session token")
	// ErrInvalidLevel: a consistency level that is not one of azcosmos.ConsistencyLevelValues().
	ErrInvalidLevel = errors.New("cosmoskit: invalid consistency level")
	// ErrInvalidVector: a query vector with the wrong number of dimensions, a NaN or an infinity,
	// or a value its data type cannot hold.
	ErrInvalidVector = errors.New("cosmoskit: invalid query vector")
	// ErrNotUnit: a vector for a cosine search is not of unit length within the tolerance.
	ErrNotUnit = errors.New("cosmoskit: vector is not of unit length")
	// ErrNoPolicy: the container has no policy for the path that the operation needs: a vector
	// embedding policy for a vector search (Search, Hybrid, Index), or a full-text policy where one
	// is required. One sentinel for both; the ValidationError's Reason names which policy is
	// missing. (vector.Text needs no full-text policy: the service scores without it.)
	ErrNoPolicy = errors.New("cosmoskit: no vector embedding or full-text policy for the path")
	// ErrInvalidConfig: a cosmoskit.Config that New cannot use.
	ErrInvalidConfig = errors.New("cosmoskit: invalid config")
	// ErrInvalidSpec: a container spec or database options that cannot be provisioned.
	ErrInvalidSpec = errors.New("cosmoskit: invalid container spec")
	// ErrConfigConflict: New was asked for a client for an account and identity that already has
	// one in the process, with different settings (see [*ConfigConflictError]).
	ErrConfigConflict = errors.New("cosmoskit: conflicting config for an account that already has a client")
)

// Answers about documents and operations (not refusals before sending).
var (
	// ErrTypeMismatch: a document read has a "type" other than the repository's (or none).
	ErrTypeMismatch = errors.New("cosmoskit: document type mismatch")
	// ErrUnknownSchemaVersion: a document's "schemaVersion" is newer than the code knows, missing,
	// or has no registered upgrade path to the current version.
	ErrUnknownSchemaVersion = errors.New("cosmoskit: unknown schema version")
	// ErrCommittedResult: a transactional batch committed but one operation's result could not be
	// read or decoded. The batch was applied: do not run it again.
	ErrCommittedResult = errors.New("cosmoskit: batch committed; operation result unreadable")
	// ErrTooManyAttempts: an optimistic update lost the ETag race on every attempt.
	ErrTooManyAttempts = errors.New("cosmoskit: update gave up after repeated ETag conflicts")
	// ErrLevelTooStrong: the service refused (400) a request whose consistency level is stronger
	// than the account's default: a request may only relax it.
	ErrLevelTooStrong = errors.New("cosmoskit: consistency level stronger than the account's")
	// ErrUnsupported: a query the cross-partition engine cannot answer correctly; refused before
	// any result is returned, never answered wrongly.
	ErrUnsupported = errors.New("cosmoskit: query not supported")
	// ErrNotResumable: a continuation token asked of a query whose results cannot be resumed.
	ErrNotResumable = errors.New("cosmoskit: query cannot resume from a continuation token")
	// ErrLeaseLost: a change feed lease was found owned by another instance or deleted; this
	// instance stops processing it.
	ErrLeaseLost = errors.New("cosmoskit: change feed lease lost")
	// ErrPoisonBatch: a change feed batch failed its maximum number of deliveries.
	ErrPoisonBatch = errors.New("cosmoskit: poison batch")
	// ErrHandler: a change feed handler returned an error (or panicked).
	ErrHandler = errors.New("cosmoskit: change feed handler failed")
	// ErrStarted: Start on a change feed processor already started.
	ErrStarted = errors.New("cosmoskit: processor already started")
	// ErrNotCheckpointable: a change feed batch that cannot be checkpointed (not manual mode, or
	// its lease is no longer this instance's).
	ErrNotCheckpointable = errors.New("cosmoskit: batch cannot be checkpointed")
	// ErrNoCredential: the client has no credential cosmoskit can sign with (made by
	// cosmoskit.NewFromClient); build it with cosmoskit.New.
	ErrNoCredential = errors.New("cosmoskit: the client has no credential cosmoskit can sign with")
	// ErrClosed: a method of a closed client.
	ErrClosed = errors.New("cosmoskit: client is closed")
	// ErrContainerMismatch: an existing container differs from its spec in what cannot be changed
	// (see [*MismatchError]).
	ErrContainerMismatch = errors.New("cosmoskit: existing container does not match the spec")
)
