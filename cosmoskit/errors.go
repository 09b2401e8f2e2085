package cosmoskit

import "github.com/cosmoskit/cosmoskit-go/cosmoserr"

// configError is New's refusal of a Config field: a *cosmoserr.ValidationError of Kind
// cosmoserr.ErrInvalidConfig. field comes from Config.field (it names the environment variable
// the value came from); reason and cause never carry a key or connection string.
func configError(field, reason string, cause error) error {
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidConfig, Field: field, Reason: reason, Err: cause}
}

// specError is the refusal of a ContainerSpec or DatabaseOptions field (field is
// "ContainerSpec.<field>", "DatabaseOptions.<field>" or "id"): a *cosmoserr.ValidationError of Kind
// cosmoserr.ErrInvalidSpec.
func specError(field, reason string) error {
	return &cosmoserr.ValidationError{Kind: cosmoserr.ErrInvalidSpec, Field: field, Reason: reason}
}
