package pluginhost

import (
	"bytes"
	"encoding/json"
	"sync"
)

// tail keeps the last lines a plugin wrote to stderr, so a plugin that dies can
// be reported with its own last words. go-plugin writes whole lines to it.
type tail struct {
	mu      sync.Mutex
	max     int
	lines   []string
	part    []byte
	written uint64 // lines kept since the process started, dropped ones included
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, b...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.add(t.part[:i])
		t.part = t.part[i+1:]
	}
	return len(b), nil
}

func (t *tail) add(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	s := readable(line)
	if s == "" {
		return
	}
	if len(t.lines) == t.max {
		copy(t.lines, t.lines[1:])
		t.lines = t.lines[:t.max-1]
	}
	t.lines = append(t.lines, s)
	t.written++
}

// readable renders an hclog JSON line as "level: message", and drops debug
// and trace lines (go-plugin's own chatter); other lines stay as they are.
func readable(line []byte) string {
	var entry struct {
		Level   string `json:"@level"`
		Message string `json:"@message"`
	}
	if line[0] == '{' && json.Unmarshal(line, &entry) == nil && entry.Message != "" {
		if entry.Level == "debug" || entry.Level == "trace" {
			return ""
		}
		return entry.Level + ": " + entry.Message
	}
	const max = 500
	if len(line) > max {
		line = append(line[:max:max], "..."...)
	}
	return string(line)
}

// Lines returns a copy of the kept lines, oldest first.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// mark is where the tail stands now, for since.
func (t *tail) mark() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written
}

// since returns the kept lines written after mark, oldest first.
func (t *tail) since(mark uint64) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.written - mark
	if n > uint64(len(t.lines)) {
		n = uint64(len(t.lines))
	}
	return append([]string(nil), t.lines[len(t.lines)-int(n):]...)
}
