package config

import (
	"strings"
	"testing"
)

func TestObservabilitySettings(t *testing.T) {
	c, err := Parse(nil, "/etc/toolgate/toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Listen.Metrics || c.Gateway.AuditLog != "" || c.Telemetry.OTLPEndpoint != "" {
		t.Errorf("defaults: metrics %v, audit_log %q, otlp_endpoint %q; want metrics on, the rest off",
			c.Listen.Metrics, c.Gateway.AuditLog, c.Telemetry.OTLPEndpoint)
	}

	for _, tc := range []struct {
		src                    string
		metrics                bool
		auditLog, otlpEndpoint string
	}{
		{src: "listen {\n  metrics = false\n}", metrics: false},
		{src: "listen {\n  metrics = true\n}", metrics: true},
		{src: "gateway {\n  audit_log = \"logs/audit.jsonl\"\n}", metrics: true, auditLog: "/etc/toolgate/logs/audit.jsonl"},
		{src: "gateway {\n  audit_log = \"/var/log/tg.jsonl\"\n}", metrics: true, auditLog: "/var/log/tg.jsonl"},
		{src: "gateway {\n  audit_log = \"\"\n}", metrics: true},
		{src: "telemetry {\n  otlp_endpoint = \"127.0.0.1:4317\"\n}", metrics: true, otlpEndpoint: "127.0.0.1:4317"},
		{src: "telemetry {\n  otlp_endpoint = \"https://otel.example.com:4317\"\n}", metrics: true, otlpEndpoint: "https://otel.example.com:4317"},
		{src: "telemetry {\n  otlp_endpoint = \"http://collector\"\n}", metrics: true, otlpEndpoint: "http://collector"},
		{src: "telemetry {}", metrics: true},
	} {
		c, err := Parse([]byte(tc.src), "/etc/toolgate/toolgate.hcl")
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if c.Listen.Metrics != tc.metrics || c.Gateway.AuditLog != tc.auditLog || c.Telemetry.OTLPEndpoint != tc.otlpEndpoint {
			t.Errorf("%s: metrics %v, audit_log %q, otlp_endpoint %q; want %v, %q, %q", tc.src,
				c.Listen.Metrics, c.Gateway.AuditLog, c.Telemetry.OTLPEndpoint, tc.metrics, tc.auditLog, tc.otlpEndpoint)
		}
	}
}

func TestObservabilitySettingErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"telemetry {\n  otlp_endpoint = \"collector\"\n}",
			`toolgate.hcl:2:19: invalid otlp_endpoint "collector"; write host:port or an http:// or https:// URL, such as "127.0.0.1:4317" or "https://otel.example.com:4317"`},
		{"telemetry {\n  otlp_endpoint = \"grpc://collector:4317\"\n}",
			`toolgate.hcl:2:19: invalid otlp_endpoint "grpc://collector:4317"; write host:port`},
		{"telemetry {\n  otlp_endpoint = \"https://\"\n}",
			`toolgate.hcl:2:19: invalid otlp_endpoint "https://"`},
		{"telemetry {\n  otlp_endpont = \"x:1\"\n}",
			`toolgate.hcl:2:3: Unsupported argument; An argument named "otlp_endpont" is not expected here. Did you mean "otlp_endpoint"?`},
		{"listen {\n  metrics = \"maybe\"\n}",
			`toolgate.hcl:2:14: Unsuitable value type; Unsuitable value: a bool is required`},
		{"telemetri {}",
			`toolgate.hcl:1:1: Unsupported block type; Blocks of type "telemetri" are not expected here. Did you mean "telemetry"?`},
	} {
		_, err := Parse([]byte(tc.src), "toolgate.hcl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant it to contain %s", tc.src, err, tc.want)
		}
	}
}
