// Package conflicts reads and deletes a container's conflicts feed: the losing versions of
// concurrent writes to one item in two regions of a multi-write account. The service keeps them
// when the container's conflict resolution policy is Custom (without a merge procedure, or when
// the procedure fails). azcosmos v1.5.0 has no API for it, so a Reader signs its own requests with
// the credential of the *cosmoskit.Client it is built from, through that client's transport, TLS
// settings and cosmoskit policies (diagnostics, retry); the credential never leaves cosmoskit.
//
//	r, err := conflicts.New(client, "shop", "orders", conflicts.Options{})
//	for c, err := range r.All(ctx) {
//		if err != nil { ... }
//		var lost Order
//		_ = json.Unmarshal(c.Content, &lost) // nil Content: the loser was a delete
//		// merge lost into the current version (the item whose _rid is c.ResourceID), then:
//		if err := r.Delete(ctx, c); err != nil { ... }
//	}
//
// The package Example runs this loop against a two-region multi-write cosmostest server.
//
// A conflict stays in the feed until deleted. Under last-writer-wins, conflicts are resolved
// without the feed; see cosmoskit.ConflictResolutionSpec for choosing the policy and for the
// version-number pattern.
package conflicts
