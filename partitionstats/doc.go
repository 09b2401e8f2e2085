// Package partitionstats makes a container's partitioning visible before it hurts: storage per
// physical partition, the largest logical partitions, and size warnings. It reports how much each
// physical partition stores, which logical partitions are the largest, and warnings as a logical
// partition approaches the service's 20 GB limit or a physical one its 50 GB.
//
//	st, err := partitionstats.ReadStorage(ctx, container, partitionstats.StorageOptions{})
//	for _, w := range st.Warnings {
//		log.Print(w) // a partition at or above 80% of its limit
//	}
//
// [ReadStorage] reads the container once with x-ms-documentdb-populatepartitionstatistics and
// x-ms-documentdb-populatequotainfo (a metadata read, which counts against a separate, small
// budget: run it from a job or an admin endpoint, not per request) and returns a [StorageReport].
// The service samples the logical partitions it reports, and lists only the larger ones.
//
// For traffic (RU and 429s per physical partition, hot logical keys), see diagnostics.
package partitionstats
