package cosmoserr

import "strings"

// Difference is one setting that differs between what was asked and what exists. Want and Have are
// filled only for plain settings (regions, durations, paths, levels); they are "" for anything that
// could hold a secret or an end user's value, which is never copied into an error.
type Difference struct {
	Field      string // e.g. "PreferredRegions", "PartitionKeyPaths"
	Want, Have string
}

func (d Difference) String() string {
	if d.Want == "" && d.Have == "" {
		return d.Field
	}
	return d.Field + " (want " + d.Want + ", have " + d.Have + ")"
}

func differences(ds []Difference) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, ", ")
}

// ConfigConflictError is New's refusal of a config for an account and identity that already has a
// client in the process with other settings. It matches ErrConfigConflict and ErrValidation, and
// errors.As finds a *ValidationError in it.
type ConfigConflictError struct {
	// Differences lists the Config fields that differ, in Config order.
	Differences []Difference
}

func (e *ConfigConflictError) Error() string {
	return ErrConfigConflict.Error() + ": " + differences(e.Differences) +
		" differ (configure the client once, Close the other one, or build an independent client)"
}

// Unwrap returns the *ValidationError the conflict is.
func (e *ConfigConflictError) Unwrap() error {
	field := "Config"
	if len(e.Differences) > 0 {
		field = "Config." + e.Differences[0].Field
	}
	return &ValidationError{Kind: ErrConfigConflict, Field: field, Reason: "differs from the open client's for the same account and identity"}
}

// MismatchError is an existing resource that differs from its spec. It matches
// ErrContainerMismatch.
type MismatchError struct {
	Database, Container string
	// Differences lists what differs.
	Differences []Difference
}

func (e *MismatchError) Error() string {
	return ErrContainerMismatch.Error() + ": " + e.Database + "/" + e.Container + ": " + differences(e.Differences)
}

// Is reports whether target is ErrContainerMismatch.
func (e *MismatchError) Is(target error) bool { return target == ErrContainerMismatch }
