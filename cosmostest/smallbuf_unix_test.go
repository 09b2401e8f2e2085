//go:build unix

package cosmostest_test

import "syscall"

// smallReceiveBuffer is a net.Dialer Control func that makes the socket's receive buffer tiny
// before it connects (afterwards the advertised window is already negotiated).
func smallReceiveBuffer(_, _ string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
	}); err != nil {
		return err
	}
	return serr
}
