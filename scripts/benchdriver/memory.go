package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// idleMemory prints the idle memory table of a gateway serving n mcp-stdio
// plugins (each the everything server) and the hello plugin, all started with
// it, and nothing else: what the wrapper costs per mcp-stdio plugin.
func idleMemory(n int, bin, hello, everything string) error {
	dir, err := os.MkdirTemp("", "toolgate-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "listen { http = \"127.0.0.1:%d\" }\ngateway { state_dir = %q }\n", port, filepath.Join(dir, "state"))
	fmt.Fprintf(&b, "plugin \"hello\" {\n  path = %q\n  auto_start = true\n}\n", hello)
	tools := []string{"x_hello_echo"}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "plugin \"everything%d\" {\n  type = \"mcp-stdio\"\n  auto_start = true\n  config {\n    command = %q\n    args = [\"stdio\"]\n  }\n}\n", i, everything)
		tools = append(tools, fmt.Sprintf("x_everything%d_echo", i))
	}
	cfg := filepath.Join(dir, "memory.hcl")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
		return err
	}
	srv, _, err := startIdle(bin, cfg, port, hello, tools...)
	if err != nil {
		return err
	}
	defer srv.stop()
	printMemory(srv.Process.Pid, fmt.Sprintf("%d mcp-stdio plugins and hello, idle, %s after start", n, idleAfter))
	return nil
}

// idleGateway is an HTTP gateway process started by startIdle.
type idleGateway struct{ *exec.Cmd }

func (g idleGateway) stop() {
	_ = g.Process.Signal(syscall.SIGTERM)
	_ = g.Wait()
}

// startIdle serves cfg over HTTP on port from bin, with the binaries first
// evicted from the page cache (so they fault in as after a reboot), waits
// until tools are listed, then until idleAfter has passed since the start,
// so its memory can be read idle. The caller stops it.
func startIdle(bin, cfg string, port int, hello string, tools ...string) (idleGateway, *httpRPC, error) {
	dropCached(bin, wrapperOf(bin), hello)
	srv := idleGateway{exec.Command(bin, "serve", "--config", cfg)}
	if err := srv.Start(); err != nil {
		return srv, nil, err
	}
	started := time.Now()
	c, err := dialHTTP(fmt.Sprintf("http://127.0.0.1:%d/mcp", port))
	if err == nil {
		err = waitTools(c, tools...)
	}
	if err != nil {
		srv.stop()
		return srv, nil, err
	}
	time.Sleep(time.Until(started.Add(idleAfter)))
	return srv, c, nil
}

// wrapperOf is the mcp-stdio wrapper a gateway binary runs when it is beside it.
func wrapperOf(bin string) string { return filepath.Join(filepath.Dir(bin), "toolgate-mcp-stdio") }

// idleAfter is when the idle memory is read: the plugins have started and
// settled, and nothing has called them.
const idleAfter = 6 * time.Second

// printMemory prints the resident memory of the HTTP gateway (its two
// auto-started plugins running) and of each of its child processes, from
// /proc/PID/smaps_rollup: RSS, the anonymous part of it (heap, stacks), and
// PSS, which divides each shared page among the processes mapping it (the
// gateway and an mcp-stdio wrapper map the same binary).
func printMemory(gateway int, when string) {
	fmt.Printf("| process (HTTP gateway, %s) | RSS | anonymous | PSS |\n", when)
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| gateway | %s |\n", memory(gateway))
	pss := pssKB(gateway)
	for _, pid := range children(gateway) {
		fmt.Printf("| %s | %s |\n", command(pid), memory(pid))
		for _, grand := range children(pid) {
			fmt.Printf("| └ %s | %s |\n", command(grand), memory(grand))
		}
		pss += pssKB(pid)
	}
	fmt.Printf("| PSS of the gateway and its plugin processes (└ not counted) | | | %.1f MB |\n", float64(pss)/1024)
	fmt.Println()
}

func children(parent int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(parent) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			out = append(out, pid)
		}
	}
	sort.Ints(out)
	return out
}

func command(pid int) string {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	if len(args) > 0 {
		args[0] = filepath.Base(args[0])
	}
	if len(args) > 4 {
		args = args[:4]
	}
	return strings.Join(args, " ")
}

// dropCached evicts the binaries from the page cache, so the processes
// measured next fault them in from disk as after a reboot. How a file came
// into the cache (written by the linker, copied, read back) sets the size of
// its page-cache folios, and a fault maps a whole folio: the same binary
// measured 3 MB more RSS straight after a build than read back from disk.
func dropCached(paths ...string) {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		_ = f.Sync() // dirty pages (a binary just built) are not evicted
		_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		_ = f.Close()
	}
}

// rollup is a process's /proc/PID/smaps_rollup in kB by field; nil when
// the process is gone.
func rollup(pid int) map[string]int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return nil
	}
	kb := map[string]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if ok {
			kb[name], _ = strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	return kb
}

func pssKB(pid int) int { return rollup(pid)["Pss"] }

// memory is the RSS, anonymous and PSS cells of a process's row.
func memory(pid int) string {
	kb := rollup(pid)
	if kb == nil {
		return "? | ? | ?"
	}
	mb := func(k string) string { return fmt.Sprintf("%.1f MB", float64(kb[k])/1024) }
	return mb("Rss") + " | " + mb("Anonymous") + " | " + mb("Pss")
}
