listen {
  http = "127.0.0.1:8700"        # streamable HTTP at /mcp
  # token = env("TOOLGATE_TOKEN") # bearer token required when set
}

plugin "everything" {
  type       = "mcp-stdio"
  auto_start = false
  labels     = { category = "demo" }
  config {
    command = "npx"
    args    = ["-y", "@modelcontextprotocol/server-everything"]
  }
}

plugin "prom" {
  type = "prometheus"
  config { url = "http://127.0.0.1:9090" }
}

plugin "k8s" {
  type = "kubernetes"
  config {
    kubeconfig = "~/.kube/config"
    read_only  = true
  }
}

plugin "hello" {
  path = "./bin/hello-plugin"     # any SDK-built executable
}
