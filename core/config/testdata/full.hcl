listen {
  http            = "127.0.0.1:8700"
  token           = env("TG_TEST_TOKEN", "")
  tokens          = ["second"]
  allowed_origins = ["http://localhost:3000"]
  allowed_hosts   = ["localhost"]
}

gateway {
  call_timeout      = "30s"
  shutdown_grace    = "2s"
  max_request_bytes = 1048576
  state_dir         = "state"
  log_level         = upper("debug")
}

plugin "everything" {
  type       = "mcp-stdio"
  auto_start = true
  labels     = { category = "demo" }
  env        = { NODE_ENV = "production", RETRIES = 3 }
  config {
    command = "npx"
    args    = ["-y", "@modelcontextprotocol/server-everything"]
    headers = { "X-Id" = "abc", Accept = lower("TEXT/PLAIN") }
    limit   = 9007199254740993
    ratio   = 0.25
    secret  = file("secret.txt")
    server {
      url = "http://a"
    }
    server {
      url = "http://b"
    }
    upstream "eu" {
      weight = 1
    }
  }
}

plugin "hello" {
  path         = "./bin/hello-plugin"
  args         = ["--verbose"]
  idle_timeout = "5m"
  call_timeout = "1m30s"
  disabled     = true
}
