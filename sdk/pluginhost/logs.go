package pluginhost

import (
	"bytes"
	"encoding/json"
	"sort"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// relay takes what a plugin writes to the stdout or stderr that go-plugin put
// in place of its own once it serves (log lines of a logger made inside a
// handler, a library's prints), which go-plugin forwards over gRPC. Each line
// goes to the host's log under the plugin's name and into the kept tail, like
// the lines written before serving.
type relay struct {
	log    hclog.Logger
	tail   *tail
	stream string

	mu   sync.Mutex
	part []byte
}

func (r *relay) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.part = append(r.part, b...)
	for {
		i := bytes.IndexByte(r.part, '\n')
		if i < 0 {
			break
		}
		r.line(r.part[:i])
		r.part = r.part[i+1:]
	}
	return len(b), nil
}

func (r *relay) line(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	_, _ = r.tail.Write(append(append([]byte(nil), line...), '\n'))
	if level, msg, args, ok := hclogLine(line); ok {
		r.log.Log(level, msg, args...)
		return
	}
	r.log.Info("plugin "+r.stream, "line", readable(line))
}

// hclogLine reads a line an hclog JSON logger wrote: its level, message and
// fields, without the timestamp the host's own log adds again.
func hclogLine(line []byte) (hclog.Level, string, []any, bool) {
	if line[0] != '{' {
		return 0, "", nil, false
	}
	var entry map[string]any
	if json.Unmarshal(line, &entry) != nil {
		return 0, "", nil, false
	}
	msg, ok := entry["@message"].(string)
	if !ok {
		return 0, "", nil, false
	}
	levelName, _ := entry["@level"].(string)
	level := hclog.LevelFromString(levelName)
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	keys := make([]string, 0, len(entry))
	for k := range entry {
		if k != "@message" && k != "@level" && k != "@timestamp" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	args := make([]any, 0, 2*len(keys))
	for _, k := range keys {
		args = append(args, k, entry[k])
	}
	return level, msg, args, true
}
