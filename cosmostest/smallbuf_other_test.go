//go:build !unix

package cosmostest_test

import "syscall"

// smallReceiveBuffer is nil where the socket option is not portable: the slow-reader test then
// relies on the amount of data alone.
var smallReceiveBuffer func(_, _ string, c syscall.RawConn) error
