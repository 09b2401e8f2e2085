package capacity

import "github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

// ThroughputProperties returns the throughput to provision for the plan's mode: manual
// Manual.RUs, or autoscale with maximum Autoscale.MaxRUs. Pass it to CreateContainer (or set
// cosmoskit.ContainerSpec's ManualThroughput or AutoscaleMaxThroughput to ProvisionedRUs).
func (p *Plan) ThroughputProperties() azcosmos.ThroughputProperties {
	if p.Workload.Mode == Autoscale {
		return azcosmos.NewAutoscaleThroughputProperties(int32(p.Autoscale.MaxRUs))
	}
	return azcosmos.NewManualThroughputProperties(int32(p.Manual.RUs))
}
