package cosmoskit

import "net"

// SetDialWrap sets the hook that wraps every connection cosmoskit's transports dial; tests only,
// before building a client.
func SetDialWrap(f func(net.Conn) net.Conn) { dialWrap = f }
