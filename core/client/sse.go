package client

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// maxEventBytes bounds one server-sent event; a tool result with a large
// image is a few megabytes, and the gateway itself refuses more than that.
const maxEventBytes = 64 << 20

// readEvents reads a text/event-stream and calls fn with the data of each
// event of type "message" (or no type). It returns nil at the end of the
// stream, or fn's error, which stops the reading.
func readEvents(r io.Reader, fn func(data []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventBytes)
	var (
		data  bytes.Buffer
		event string
		has   bool
	)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if has && (event == "" || event == "message") {
				if err := fn(bytes.Clone(data.Bytes())); err != nil {
					return err
				}
			}
			data.Reset()
			event, has = "", false
			continue
		}
		if line[0] == ':' {
			continue // a comment: keep-alive
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if has {
				data.WriteByte('\n')
			}
			data.Write(value)
			has = true
		case "event":
			event = string(value)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read event stream: %w", err)
	}
	return nil
}
