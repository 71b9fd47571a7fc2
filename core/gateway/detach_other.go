//go:build !unix

package gateway

import (
	"errors"
	"os"
)

// ErrDetachUnsupported is returned by DetachStdio where file descriptors
// cannot be re-pointed.
var ErrDetachUnsupported = errors.New("detach stdio: not supported on this platform")

// DetachStdio is only available on Unix; see detach_unix.go.
func DetachStdio() (in, out *os.File, err error) { return nil, nil, ErrDetachUnsupported }
