package prometheus

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// FuzzRangeText feeds the summary of a range query's answer sample values
// Prometheus may send, any float64 at all: the text must come out, each
// series' trend must draw one mark per value spanning lowest to highest bar,
// and the average of finite values must be finite.
func FuzzRangeText(f *testing.F) {
	f.Add(floats(1, 2, 3))
	f.Add(floats(math.NaN(), math.Inf(1), 5e-324, 0))
	start := time.Unix(t0, 0)
	f.Fuzz(func(t *testing.T, raw []byte) {
		vals := make([]float64, len(raw)/8)
		points := make([]model.SamplePair, len(vals))
		for i := range vals {
			vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[i*8:]))
			points[i] = model.SamplePair{Timestamp: model.TimeFromUnix(t0 + int64(i)), Value: model.SampleValue(vals[i])}
		}
		m := model.Matrix{{Metric: model.Metric{"job": "x"}, Values: points}}
		_ = rangeText(m, m, start, start.Add(time.Duration(len(vals))*time.Second), time.Second)

		marks := []rune(sparkline(vals))
		if len(marks) != len(vals) {
			t.Fatalf("sparkline of %v has %d marks", vals, len(marks))
		}
		lo, avg, _ := stats(vals)
		if lo == "-" {
			return
		}
		mn, mx := math.Inf(1), math.Inf(-1)
		for _, v := range vals {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				mn, mx = math.Min(mn, v), math.Max(mx, v)
			}
		}
		if avg == "+Inf" || avg == "-Inf" || avg == "NaN" {
			t.Fatalf("average of the finite values of %v is %q", vals, avg)
		}
		for i, v := range vals {
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				if marks[i] != ' ' {
					t.Fatalf("mark %q for %v", marks[i], v)
				}
			case !strings.ContainsRune("▁▂▃▄▅▆▇█", marks[i]):
				t.Fatalf("mark %q for %v", marks[i], v)
			case v == mn && mn < mx && marks[i] != '▁':
				t.Fatalf("lowest value %v of %v drawn %q", v, vals, marks[i])
			case v == mx && mn < mx && marks[i] != '█':
				t.Fatalf("highest value %v of %v drawn %q", v, vals, marks[i])
			}
		}
	})
}

func floats(vals ...float64) []byte {
	b := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}
