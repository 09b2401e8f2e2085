//go:build !race

package changefeed_test

const raceEnabled = false
