package changefeed

// Kill stops p like a crash: no release, no checkpoint.
func Kill(p *Processor) { p.kill() }
