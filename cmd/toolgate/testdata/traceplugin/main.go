// Command traceplugin answers the W3C trace context each call arrived with,
// so a test can see that the gateway's span reached the plugin.
package main

import (
	"context"

	"github.com/toolgate/toolgate/sdk/plugin"
)

func main() {
	plugin.Serve(&plugin.Plugin{
		Name:    "traceplugin",
		Version: "0.0.1",
		Tools: []plugin.Tool{
			plugin.NewTool("traceparent", "Answer the traceparent the call arrived with.",
				func(ctx context.Context, _ *plugin.Call, _ struct{}) (*plugin.Result, error) {
					tp, _ := plugin.TraceContext(ctx)
					return plugin.Text(tp), nil
				}, plugin.ReadOnly()),
		},
	})
}
