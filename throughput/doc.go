// Package throughput is client-side throughput control: a named Group with a request-unit budget
// that any workload joins through its context.
//
//	g, err := throughput.NewGroup(ctx, container, throughput.GroupOptions{Name: "import", TargetFraction: 0.3})
//	cfg.PerRetryPolicies = append(cfg.PerRetryPolicies, throughput.Policy()) // once, on the client
//	_, err = orders.Upsert(throughput.WithGroup(ctx, g), o) // waits while the group is over 30% of the RU/s
//
// A Group has a budget of request units per second (absolute, or a fraction of the container's
// provisioned throughput read from the service) that any workload joins through its context: a
// bulk job, a change feed processor, a repository, a cross-partition query. Background groups also send the service's Low priority
// (x-ms-cosmos-priority-level), so under pressure the service throttles them before the online
// path, and, where configured, a throughput bucket (x-ms-cosmos-throughput-bucket).
//
// The budget is a token bucket fed by the request units the responses report
// (x-ms-request-charge), not by request counts, and enforced by Policy, an azcore policy that
// waits before each attempt of a request whose context carries a group (WithGroup) until the
// group has budget. Install Policy once in the client's per-retry policies (cosmoskit.Config's
// PerRetryPolicies, or azcosmos.ClientOptions.PerRetryPolicies); package bulk installs it in its
// own pipeline, and a second instance in one pipeline does nothing.
//
// A Group limits what one process spends. A GlobalGroup shares one budget among processes through
// a small control container (the Java SDK's global throughput control): each process renews a
// record there every 5 s naming its share, and takes an equal share of the target among the
// records renewed within 11 s, but no more than the others' records leave: a process that joins
// waits for the others to give up their part at their next renewal (renewing itself every 1 s
// meanwhile), so the shares never add up to more than the target. The Java SDK weighs shares by each process's recent load; equal shares are
// simpler and leave a quiet process's share unused.
package throughput
