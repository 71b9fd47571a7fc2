package gateway

import "golang.org/x/sys/unix"

// dupOnto makes fd newfd refer to oldfd's open file (dup2; some Linux
// architectures only have dup3).
func dupOnto(oldfd, newfd int) error { return unix.Dup3(oldfd, newfd, 0) }
