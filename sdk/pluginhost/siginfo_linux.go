package pluginhost

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

// siginfoStatus reads si_status of a SIGCHLD siginfo, which x/sys/unix keeps in
// an opaque union: after the 16-byte header come si_pid, si_uid, si_status.
func siginfoStatus(info *unix.Siginfo) int32 {
	fields := (*[112]byte)(unsafe.Add(unsafe.Pointer(info), 16))
	return int32(binary.NativeEndian.Uint32(fields[8:12]))
}
