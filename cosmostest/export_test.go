package cosmostest

// SentHeaders exposes the table of header names cosmostest sends to the external tests.
func SentHeaders() []string { return append([]string(nil), sentHeaders...) }
