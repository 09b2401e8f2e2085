package cosmoskit

import (
	"fmt"

	"github.com/cosmoskit/cosmoskit-go/cosmoserr"
)

// ConfigError reports a Config field New cannot use, and what to do about it. It matches
// cosmoserr.ErrInvalidConfig with errors.Is. Its message names the field (and the environment variable the
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

// Is reports whether target is cosmoserr.ErrInvalidConfig.
func (e *ConfigError) Is(target error) bool { return target == cosmoserr.ErrInvalidConfig }

// Unwrap returns the underlying cause, if any.
func (e *ConfigError) Unwrap() error { return e.Err }

// SpecError reports a ContainerSpec or DatabaseOptions field that cannot be provisioned, and what to do
// about it. It matches cosmoserr.ErrInvalidSpec with errors.Is.
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

// Is reports whether target is cosmoserr.ErrInvalidSpec.
func (e *SpecError) Is(target error) bool { return target == cosmoserr.ErrInvalidSpec }
