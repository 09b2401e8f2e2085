//go:build race

package main

// raceEnabled: this test binary was built with -race, so TestBinary builds the command with -race
// too and reuses the packages already compiled for the test.
const raceEnabled = true
