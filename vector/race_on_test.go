//go:build race

package vector_test

// raceEnabled: the race detector is on (the large acceptance test is skipped: see there).
const raceEnabled = true
