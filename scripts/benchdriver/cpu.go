package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux.
const clockTicks = 100

// procCPU is the CPU time one process of a measured tree spent per call.
type procCPU struct {
	pid     int
	name    string
	perCall time.Duration
}

// treeCPU is the CPU time used so far by root and every process below it.
func treeCPU(root int) map[int]time.Duration {
	out := map[int]time.Duration{}
	var walk func(int)
	walk = func(pid int) {
		out[pid] = cpuOf(pid)
		for _, c := range children(pid) {
			walk(c)
		}
	}
	walk(root)
	return out
}

func cpuOf(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command's closing parenthesis: state ppid ... utime(14) stime(15).
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clockTicks
}

// perCall is what each process of the tree spent per call between two
// readings, the busiest first; processes that did nothing are left out.
func perCall(before, after map[int]time.Duration, n int) []procCPU {
	var out []procCPU
	for pid, t := range after {
		if d := t - before[pid]; d > 0 {
			out = append(out, procCPU{pid: pid, name: command(pid), perCall: d / time.Duration(n)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].perCall > out[j].perCall })
	return out
}

func printCPU(n int, rows []row) {
	fmt.Printf("CPU time per call during the latency runs above (/proc/PID/stat, %d calls, 10 ms ticks), the measuring client excluded.\n\n", n)
	fmt.Println("| path | process | CPU per call |")
	fmt.Println("|---|---|---|")
	for _, r := range rows {
		var total time.Duration
		for _, p := range r.cpu {
			total += p.perCall
			fmt.Printf("| %s | %s | %.0f µs |\n", r.name, p.name, float64(p.perCall)/1e3)
		}
		fmt.Printf("| %s | all | %.0f µs |\n", r.name, float64(total)/1e3)
	}
	fmt.Println()
}
