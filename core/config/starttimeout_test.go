package config

import (
	"strings"
	"testing"
	"time"
)

func TestPluginStartTimeout(t *testing.T) {
	for _, tc := range []struct {
		name, attr string
		want       time.Duration
		err        string
	}{
		{name: "unset leaves the default to the supervisor", want: 0},
		{name: "set", attr: `start_timeout = "90s"`, want: 90 * time.Second},
		{name: "zero", attr: `start_timeout = "0s"`, err: "toolgate.hcl:3:19: start_timeout must be greater than zero"},
		{name: "no unit", attr: `start_timeout = 5`, err: `toolgate.hcl:3:19: invalid duration "5" for start_timeout`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "plugin \"x\" {\n  type = \"prometheus\"\n  " + tc.attr + "\n}"
			cfg, err := Parse([]byte(src), "toolgate.hcl")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Plugins[0].StartTimeout; got != tc.want {
				t.Errorf("StartTimeout = %v, want %v", got, tc.want)
			}
		})
	}
}
