package diagnostics

// IsScan exposes ScanOptions.isScan to the external tests.
func (o ScanOptions) IsScan(retrieved, returned int64) bool { return o.isScan(retrieved, returned) }
