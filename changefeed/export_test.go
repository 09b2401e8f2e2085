package changefeed

// Kill stops p like a crash: no release, no checkpoint.
func Kill(p *Processor) { p.kill() }

// DotnetFixture is dotnetFixture: a .NET-written lease document of testdata/dotnet.
var DotnetFixture = dotnetFixture
