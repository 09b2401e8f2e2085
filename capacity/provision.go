package capacity

import (
	"math"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// ThroughputProperties returns the throughput to provision for the plan's mode: manual
// Manual.RUs, or autoscale with maximum Autoscale.MaxRUs. Pass it to CreateContainer (or set
// cosmoskit.ContainerSpec's ManualThroughput or AutoscaleMaxThroughput to ProvisionedRUs).
//
// New refuses a workload whose throughput exceeds what the API carries (an int32), so a plan from
// New never reaches the saturation; a Plan built by hand with a larger figure gets
// math.MaxInt32, never a wrapped (negative) value.
func (p *Plan) ThroughputProperties() azcosmos.ThroughputProperties {
	if p.Workload.Mode == Autoscale {
		return azcosmos.NewAutoscaleThroughputProperties(saturate32(p.Autoscale.MaxRUs))
	}
	return azcosmos.NewManualThroughputProperties(saturate32(p.Manual.RUs))
}

// saturate32 is v clamped to [0, math.MaxInt32].
func saturate32(v int) int32 {
	return int32(min(max(v, 0), math.MaxInt32))
}
