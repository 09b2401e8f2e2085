// Package rucharge is the one home of the request-unit charges that cosmostest bills and package
// capacity plans with: the documented charge of a point read and of a write by item size, and the
// share of a write that its indexed terms cost.
//
// Sources:
//
//   - Reads and writes by size: learn.microsoft.com, "Understand request unit consumption" (the
//     table "Document size / Read operation / Write operation": 1 KB read 1.00, write 4.95; 128 KB
//     read 9.95, write 48.19; 2,048 KB read 291.80, write 1,250.00; reads at Session and Eventual).
//     Between two rows the charge is interpolated linearly; below 1 KB it is the 1 KB row. The
//     "Optimize request cost" page rounds the same curve ("1 KB: 1 RU, 100 KB: 10 RU"); the table
//     gives 7.68 RU at 100 KB.
//   - Strong and Bounded Staleness reads cost twice as much (same pages: "approximately two times
//     more RUs"); [StrongReadFactor].
//   - Writes grow with the number of indexed properties and fall when paths are excluded or the
//     indexing mode is none ("Request units in Azure Cosmos DB", considerations "Item indexing",
//     "Item property count", "Indexed properties"). The docs give no figure per property: this
//     package assumes the table's writes index [TableIndexedTerms] terms and that each indexed term
//     costs [PerIndexedTermRU] (a 1 KB item with ten indexed properties: 6.55 RU, with none
//     2.55 RU); both are assumptions, to be replaced by measurements on a real
//     account (capacity.Measure) where it matters.
//   - A replace costs about twice an insert of the same item (the old terms are removed from the
//     index, the new ones added): [ReplaceFactor]. Also an assumption drawn from the service's
//     observed charges (issue 35: ~11 RU for a 1 KB replace against ~5 for the insert).
package rucharge

// sizeRow is one row of the documented charge table.
type sizeRow struct{ kb, read, write float64 }

// table is "Understand request unit consumption"'s table, in KB.
var table = []sizeRow{
	{1, 1.00, 4.95}, {2, 1.04, 6.29}, {4, 1.14, 6.67}, {8, 1.33, 7.04}, {16, 1.67, 9.52},
	{32, 2.19, 11.23}, {64, 4.76, 22.67}, {128, 9.95, 48.19}, {256, 20.28, 98.29},
	{512, 40.95, 184.57}, {1024, 145.90, 625.00}, {2048, 291.80, 1250.00},
}

// Model constants (see the package doc for which are documented and which assumed).
const (
	// TableIndexedTerms is the number of indexed terms the table's write figures are taken to
	// include (assumed: an id and one property holding the item's bulk).
	TableIndexedTerms = 2
	// PerIndexedTermRU is the charge of one indexed term of a write (assumed).
	PerIndexedTermRU = 0.2
	// ReplaceFactor multiplies the write charge of a replace (or an upsert that replaces, or a
	// patch) against an insert of the same item (assumed from observed charges).
	ReplaceFactor = 2.0
	// StrongReadFactor multiplies reads and queries at Strong and Bounded Staleness (documented).
	StrongReadFactor = 2.0
)

// interp returns the table's column col at kb (linear between rows, the first row below 1 KB,
// extrapolated along the last two rows beyond 2 MB).
func interp(kb float64, col func(sizeRow) float64) float64 {
	if !(kb > table[0].kb) { // also NaN
		return col(table[0])
	}
	for i := 1; i < len(table); i++ {
		if kb <= table[i].kb {
			a, b := table[i-1], table[i]
			return col(a) + (col(b)-col(a))*(kb-a.kb)/(b.kb-a.kb)
		}
	}
	a, b := table[len(table)-2], table[len(table)-1]
	return col(b) + (col(b)-col(a))*(kb-b.kb)/(b.kb-a.kb)
}

// ReadRU is the documented charge of a point read of an item of kb KB (1,024 bytes) at Session or
// Eventual consistency.
func ReadRU(kb float64) float64 { return interp(kb, func(r sizeRow) float64 { return r.read }) }

// TableWriteRU is the documented charge of inserting an item of kb KB with the default indexing
// policy (every property indexed).
func TableWriteRU(kb float64) float64 { return interp(kb, func(r sizeRow) float64 { return r.write }) }

// WriteRU is the charge of inserting an item of kb KB of which terms values are indexed: the
// table's figure less the index share it is taken to include, plus PerIndexedTermRU per term.
// It never goes below the table's figure less that share (terms < 0 counts as 0).
func WriteRU(kb float64, terms int) float64 {
	return TableWriteRU(kb) - PerIndexedTermRU*TableIndexedTerms + PerIndexedTermRU*float64(max(terms, 0))
}
