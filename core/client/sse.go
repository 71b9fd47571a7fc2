package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEventBytes bounds one server-sent event; a tool result with a large
// image is a few megabytes. The gateway passes on whatever a plugin answers,
// so a result past this is possible, and too big to be of use.
const maxEventBytes = 64 << 20

// ErrMessageTooLarge: one message from the gateway is larger than this client
// reads. The request ran; reading its answer failed, and asking again would
// only run it again.
var ErrMessageTooLarge = fmt.Errorf("the gateway's answer is larger than the %d MiB this client reads", maxEventBytes>>20)

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
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%w; ask for less (a narrower query, or a limit if the tool takes one)", ErrMessageTooLarge)
		}
		return fmt.Errorf("read event stream: %w", err)
	}
	return nil
}
