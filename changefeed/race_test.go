//go:build race

package changefeed_test

// raceEnabled scales the large tests down under the race detector (about 8x slower: a fifth of the changes), keeping
// the package's tests well under a minute; without it they run at the full size.
const raceEnabled = true
