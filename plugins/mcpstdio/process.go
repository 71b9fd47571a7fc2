package mcpstdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/toolgate/toolgate/internal/clip"
)

const (
	// stderrTailLines is how many of the server's last stderr lines an exit
	// error carries: enough for a stack trace's head or a usage message.
	stderrTailLines = 20
	// stderrLineLimit is the longest stderr line read whole; the rest of a
	// longer one is skipped.
	stderrLineLimit = 64 << 10
	// stderrGrace bounds the wait for stderr to end after the server exited;
	// a grandchild may hold the pipe open forever.
	stderrGrace = 2 * time.Second
	// logLineMax keeps one runaway line from flooding the log.
	logLineMax = 4096
)

// ExitError says how the MCP server process ended and what it said last.
type ExitError struct {
	Status string   // "exit status 1", "signal: killed"
	Stderr []string // its last stderr lines, oldest first
}

func (e *ExitError) Error() string {
	msg := "mcp server exited: " + e.Status
	if len(e.Stderr) > 0 {
		msg += "; last stderr lines:\n" + strings.Join(e.Stderr, "\n")
	}
	return msg
}

// process is one running MCP server: its pipes, its stderr, and its end.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of its stdin
	stdout *os.File // our end of its stdout
	log    hclog.Logger

	tailMu sync.Mutex
	tail   []string

	stderrDone chan struct{}
	reaped     chan struct{} // closed once the process is reaped
	exited     chan struct{} // closed once it is reaped and its stderr is read
	exitErr    *ExitError    // set before exited is closed
}

// startProcess starts the server with pipes for its stdio. It stays in the
// plugin's process group, so the host's group kill ends it too, and gets
// SIGKILL should the plugin die first.
func startProcess(c *config, log hclog.Logger) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd := exec.Command(c.path, c.args...)
	cmd.Env = c.env
	cmd.Dir = c.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	// The child has its own copies now; ours would keep the pipes open.
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("start %s: %w", c.command, err)
	}
	p := &process{
		cmd: cmd, stdin: inW, stdout: outR, log: log,
		stderrDone: make(chan struct{}),
		reaped:     make(chan struct{}),
		exited:     make(chan struct{}),
	}
	go p.drainStderr(errR)
	go p.wait()
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// drainStderr logs the server's stderr line by line and keeps the last lines.
// It never stops reading while the pipe is open: a server blocked on a full
// stderr pipe stops answering.
func (p *process) drainStderr(r *os.File) {
	defer close(p.stderrDone)
	defer r.Close()
	// A line is read into a buffer of its own size at most: a server that
	// writes megabytes without a newline costs no more memory than that.
	br := bufio.NewReaderSize(r, stderrLineLimit)
	for {
		chunk, err := br.ReadSlice('\n')
		line := strings.TrimRight(string(chunk), "\r\n")
		if errors.Is(err, bufio.ErrBufferFull) {
			// The rest of an overlong line is skipped.
			line += " …"
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
		}
		if line != "" {
			p.log.Info("mcp server stderr", "line", clipLine(line))
			p.tailMu.Lock()
			p.tail = append(p.tail, clipLine(line))
			if len(p.tail) > stderrTailLines {
				p.tail = p.tail[len(p.tail)-stderrTailLines:]
			}
			p.tailMu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// wait reaps the process and records how it ended, with its stderr complete
// when the pipe closes in time.
func (p *process) wait() {
	err := p.cmd.Wait()
	close(p.reaped)
	select {
	case <-p.stderrDone:
	case <-time.After(stderrGrace):
	}
	status := "exit status 0"
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		status = ee.ProcessState.String()
	} else if err != nil {
		status = err.Error()
	}
	p.tailMu.Lock()
	p.exitErr = &ExitError{Status: status, Stderr: append([]string(nil), p.tail...)}
	p.tailMu.Unlock()
	close(p.exited)
}

// exitError returns how the process ended; only valid once exited is closed.
func (p *process) exitError() *ExitError { return p.exitErr }

// stderrTail returns the last stderr lines seen so far.
func (p *process) stderrTail() []string {
	p.tailMu.Lock()
	defer p.tailMu.Unlock()
	return append([]string(nil), p.tail...)
}

// stop ends the process: EOF on its stdin first, which is how MCP asks a
// stdio server to quit, then SIGTERM, then SIGKILL, each after grace has
// passed, and said in the log: a server that was signalled did not exit
// when asked. Processes the server started and left behind (a shell's
// background job, a wrapper's child) get SIGKILL once it is gone: they would
// hold its stderr open and outlive it until the host ends the plugin's
// process group. It returns once the process is reaped and our pipe ends are
// closed.
func (p *process) stop(grace time.Duration) {
	tree := processTree{}
	pid := p.cmd.Process.Pid
	tree.note(pid)
	_ = p.stdin.Close()
	asked := "its stdin closing"
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			p.log.Warn(fmt.Sprintf("mcp server did not exit within %s of %s; sending %s", grace.Round(time.Millisecond), asked, unix.SignalName(sig)), "pid", pid)
			tree.note(pid)
			_ = p.cmd.Process.Signal(sig)
			asked = unix.SignalName(sig)
		}
		select {
		case <-p.reaped:
			p.endStopped(tree)
			return
		case <-time.After(grace):
		}
	}
	<-p.reaped
	p.endStopped(tree)
}

func (p *process) endStopped(tree processTree) {
	tree.kill()
	<-p.exited
	_ = p.stdout.Close()
}

// jsonLines passes on only the lines of r that are JSON objects, the one
// shape a JSON-RPC message has. Servers and the tools they wrap sometimes
// print banners or debug output on stdout; such a line is logged and skipped
// instead of being fed to the JSON-RPC reader, which drops what it cannot
// read without a word.
type jsonLines struct {
	r       *bufio.Reader
	log     hclog.Logger
	pending []byte
	err     error // from r, returned once pending is drained
}

func newJSONLines(r io.Reader, log hclog.Logger) *jsonLines {
	return &jsonLines{r: bufio.NewReader(r), log: log}
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.pending) == 0 {
		if j.err != nil {
			return 0, j.err
		}
		line, err := j.r.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if trimmed[0] == '{' && json.Valid(trimmed) {
				j.pending = append(trimmed, '\n')
			} else {
				j.log.Warn("mcp server wrote a line to stdout that is no JSON-RPC message; skipped", "line", clipLine(string(trimmed)))
			}
		}
		j.err = err
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

func clipLine(s string) string {
	if len(s) <= logLineMax {
		return s
	}
	return clip.Prefix(s, logLineMax) + "…"
}
