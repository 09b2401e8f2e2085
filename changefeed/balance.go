package changefeed

import (
	"cmp"
	"slices"
	"time"
)

// plan is what one balancing round decides: leases to take (free or expired) and at most one to
// steal.
type plan struct {
	take  []*lease
	steal *lease
}

// balance is the .NET/Java EqualPartitionsBalancingStrategy. Live owners are the owners of
// unexpired leases, plus me. The target is ceil(leases / live owners), clamped to min and max
// (0 = unbounded). If I own fewer than the target I take up to the difference from the free or
// expired leases; if there are none, I steal one lease from the owner with the most leases when
// it has more than the target (or more than target-1 when I need more than one).
func balance(all []*lease, me string, now time.Time, expiration time.Duration, minLeases, maxLeases int) plan {
	if len(all) == 0 {
		return plan{}
	}
	count := map[string]int{me: 0}
	var available []*lease
	for _, l := range all {
		if l.expired(now, expiration) {
			available = append(available, l)
			continue
		}
		count[l.owner()]++
	}
	target := (len(all) + len(count) - 1) / len(count)
	if maxLeases > 0 && target > maxLeases {
		target = maxLeases
	}
	if minLeases > 0 && target < minLeases {
		target = minLeases
	}
	need := target - count[me]
	if need <= 0 {
		return plan{}
	}
	if len(available) > 0 {
		// Free leases first, then the longest expired; ties by token for a stable order.
		slices.SortFunc(available, func(a, b *lease) int {
			if c := cmp.Compare(hasOwner(a), hasOwner(b)); c != 0 {
				return c
			}
			if c := a.Timestamp.Compare(b.Timestamp.Time); c != 0 {
				return c
			}
			return cmp.Compare(a.LeaseToken, b.LeaseToken)
		})
		return plan{take: available[:min(need, len(available))]}
	}
	busiest, most := "", 0
	for owner, n := range count {
		if owner != me && (n > most || n == most && owner < busiest) {
			busiest, most = owner, n
		}
	}
	limit := target
	if need > 1 {
		limit = target - 1
	}
	if busiest == "" || most <= limit {
		return plan{}
	}
	for _, l := range all {
		if l.owner() == busiest {
			return plan{steal: l}
		}
	}
	return plan{}
}

// hasOwner is 1 for a lease with an owner (expired), 0 for a free one.
func hasOwner(l *lease) int {
	if l.owner() != "" {
		return 1
	}
	return 0
}
