package telemetry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// rotatingFile appends to path and, before a write would take it past max
// bytes, renames it to path.1 (path.1 to path.2, and so on), keeping at most
// keep old files: the audit log's disk use is bounded by (keep+1)·max. Only
// the audit writer goroutine uses it.
type rotatingFile struct {
	path string
	max  int64
	keep int
	f    *os.File
	size int64
}

func openRotating(path string, max int64, keep int) (*rotatingFile, error) {
	r := &rotatingFile{path: path, max: max, keep: keep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.size = f, info.Size()
	return nil
}

func (r *rotatingFile) Write(p []byte) (int, error) {
	if r.max > 0 && r.size > 0 && r.size+int64(len(p)) > r.max {
		if err := r.rotate(); err != nil {
			return 0, fmt.Errorf("rotate audit log %s: %w", r.path, err)
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

func (r *rotatingFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return err
	}
	if err := os.Remove(r.old(r.keep)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for i := r.keep - 1; i >= 1; i-- {
		if err := os.Rename(r.old(i), r.old(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := os.Rename(r.path, r.old(1)); err != nil {
		return err
	}
	return r.open()
}

func (r *rotatingFile) old(i int) string { return fmt.Sprintf("%s.%d", r.path, i) }

func (r *rotatingFile) Close() error { return r.f.Close() }
