//go:build unix && !linux

package gateway

import "golang.org/x/sys/unix"

// dupOnto makes fd newfd refer to oldfd's open file.
func dupOnto(oldfd, newfd int) error { return unix.Dup2(oldfd, newfd) }
