# The default toolgate config: `make run` serves it, and the binary embeds a copy
# that `toolgate serve` uses when no --config, $TOOLGATE_CONFIG or ./toolgate.hcl
# is found. Every plugin here is lazy: a backend that is missing on this machine
# only matters when one of its tools is called.

listen {
  http = "127.0.0.1:8700"          # streamable HTTP at /mcp
  # token = env("TOOLGATE_TOKEN")  # bearer token required when set
}

gateway {
  call_timeout = "60s"
  # audit_log  = "audit.jsonl"     # one JSON line per call_tool
}

# telemetry {
#   otlp_endpoint = "127.0.0.1:4317" # OpenTelemetry traces of every call
# }

# Any MCP stdio server, here the reference "everything" server from npm.
plugin "everything" {
  type         = "mcp-stdio"
  auto_start   = false
  idle_timeout = "10m"
  labels       = { category = "demo" }
  config {
    command = "npx"
    args    = ["-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"]
  }
}

# A plugin built with the SDK (`make build` puts it in ./bin).
plugin "hello" {
  path   = "./bin/hello-plugin"
  labels = { category = "demo" }
}

plugin "prom" {
  type   = "prometheus"
  labels = { category = "observability" }
  config {
    url = "http://127.0.0.1:9090"
  }
}

plugin "k8s" {
  type   = "kubernetes"
  labels = { category = "cluster" }
  config {
    kubeconfig = "~/.kube/config"
    read_only  = true
  }
}
