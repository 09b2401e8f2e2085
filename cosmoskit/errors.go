package cosmoskit

import (
	"fmt"
	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// ErrInvalidConfig is matched (with errors.Is) by every *ConfigError: a Config that New cannot use.
var ErrInvalidConfig = cosmoserr.ErrInvalidConfig

// ErrInvalidSpec is matched (with errors.Is) by every *SpecError: a ContainerSpec or DatabaseOptions
// that EnsureContainer or EnsureDatabase rejects before sending any request.
var ErrInvalidSpec = cosmoserr.ErrInvalidSpec

// ErrConfigConflict is returned by New when a client for the same account and identity is already open
// in the process with different settings: any option that changes behaviour (regions, application
// name, server certificate, endpoint discovery, Logger, Diagnostics, Retry, ClientOptions, the
// policies, Diagnostics.Disable, Retry.Disable, Session). The message names the fields that differ (values only
// where they are plain settings such as regions or durations; never a key); the error is a
// *cosmoserr.ConfigConflictError whose Differences carry them as data. cosmoskit keeps one client
// per account per process, so configure it once, Close the other Client first, or build a client
// outside the registry with NewIndependent.
var ErrConfigConflict = cosmoserr.ErrConfigConflict

// ErrClosed is returned by the methods of a Client that has been closed.
var ErrClosed = cosmoserr.ErrClosed

// ErrContainerMismatch is returned by EnsureContainer when the container already exists with a
// different partition key definition, vector embeddings or conflict resolution policy. None of them
// can be changed: create a new container and copy the data (container copy jobs or the change
// feed).
var ErrContainerMismatch = cosmoserr.ErrContainerMismatch

// ConfigError reports a Config field New cannot use, and what to do about it. It matches
// ErrInvalidConfig with errors.Is. Its message names the field (and the environment variable the
// value came from, if any) but never contains a key or connection string.
type ConfigError struct {
	// Field is the Config field at fault, e.g. "PreferredRegions[1]" or "Endpoint (from COSMOS_ENDPOINT)".
	Field string
	// Problem says what is wrong and how to fix it.
	Problem string
	// Err is an underlying cause, if any; it never carries a secret.
	Err error
}

// Error implements error.
func (e *ConfigError) Error() string {
	msg := fmt.Sprintf("cosmoskit: invalid config: %s: %s", e.Field, e.Problem)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is reports whether target is ErrInvalidConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrInvalidConfig }

// Unwrap returns the underlying cause, if any.
func (e *ConfigError) Unwrap() error { return e.Err }

// SpecError reports a ContainerSpec or DatabaseOptions field that cannot be provisioned, and what to do
// about it. It matches ErrInvalidSpec with errors.Is.
type SpecError struct {
	// Container is the container (or database) id the spec is for; it may be empty.
	Container string
	// Field is the spec field at fault, e.g. "PartitionKeyPaths[0]" or "Vectors[1].Dimensions".
	Field string
	// Problem says what is wrong and how to fix it.
	Problem string
}

// Error implements error.
func (e *SpecError) Error() string {
	if e.Container == "" {
		return fmt.Sprintf("cosmoskit: invalid spec: %s: %s", e.Field, e.Problem)
	}
	return fmt.Sprintf("cosmoskit: invalid spec for %q: %s: %s", e.Container, e.Field, e.Problem)
}

// Is reports whether target is ErrInvalidSpec.
func (e *SpecError) Is(target error) bool { return target == ErrInvalidSpec }
