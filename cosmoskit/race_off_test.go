//go:build !race

package cosmoskit_test

// raceEnabled: the race detector is on (the 10,000-caller test is skipped: see there).
const raceEnabled = false
