// Package cardinality holds the partition key paths known to have few distinct values, for the
// warnings of cosmoskit.EnsureContainer and the verdicts of package capacity.
package cardinality

import "strings"

// lowPaths are property names that usually take a handful of values (an enumeration, a flag, a
// coarse place or date). A partition key on one of them concentrates data and throughput on a few
// logical partitions (seed 000, partition-high-cardinality: "aim for 100+ distinct values";
// seed 004: "subscription_tier (basic/premium/enterprise) creates only three partitions").
var lowPaths = map[string]bool{
	"status": true, "state": true, "type": true, "kind": true, "category": true, "country": true,
	"countrycode": true, "region": true, "continent": true, "city": true, "gender": true, "tier": true,
	"plan": true, "level": true, "priority": true, "severity": true, "color": true, "colour": true,
	"language": true, "locale": true, "currency": true, "year": true, "month": true, "day": true,
	"weekday": true, "date": true, "active": true, "isactive": true, "enabled": true, "isenabled": true,
	"deleted": true, "isdeleted": true, "flag": true, "role": true, "stage": true, "phase": true,
	"doctype": true, "entitytype": true, "subscriptiontier": true, "source": true, "channel": true,
}

// LowPath reports whether the last segment of a partition key path ("/status", "/order/status")
// names a property known to have few distinct values. The match ignores case and "_" and "-".
func LowPath(path string) bool {
	name := path[strings.LastIndexByte(path, '/')+1:]
	name = strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(name))
	return lowPaths[name]
}
