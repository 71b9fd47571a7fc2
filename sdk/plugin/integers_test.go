package plugin_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// JSON Schema's "integer" is any number without a fractional part: the
// gateway's check lets 5.0 and 1e2 through an integer argument, so the
// handler takes them too; a whole number a Go integer cannot hold is told
// the range, not that it is no integer.
func TestWholeNumbersReachIntegerArguments(t *testing.T) {
	var seen pageArgs
	b := plugintest.ServePlugin(t, pager(&seen))
	for args, want := range map[string]pageArgs{
		`{"query":"q","limit":5.0}`:              {Query: "q", Limit: 5},
		`{"query":"q","limit":1e2,"scale":2.5}`:  {Query: "q", Limit: 100, Scale: 2.5},
		`{"query":"q","limit":-0.0,"level":2.0}`: {Query: "q", Limit: 0, Level: 2},
	} {
		res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "page", Arguments: json.RawMessage(args)}, &plugintest.Events{})
		if err != nil || res.IsError {
			t.Fatalf("%s: %+v, %v", args, res, err)
		}
		if seen != want {
			t.Errorf("%s: handler saw %+v, want %+v", args, seen, want)
		}
	}
	for args, want := range map[string]string{
		`{"query":"q","limit":9223372036854775808}`: `invalid arguments for page: argument "limit": expected an integer from -9223372036854775808 to 9223372036854775807, got 9223372036854775808`,
		`{"query":"q","limit":1e308}`:               `invalid arguments for page: argument "limit": expected an integer from -9223372036854775808 to 9223372036854775807, got 1e308`,
	} {
		res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "page", Arguments: json.RawMessage(args)}, &plugintest.Events{})
		if err != nil || !res.IsError || len(res.Content) != 1 || res.Content[0].Text != want {
			t.Errorf("%s:\n got %+v, %v\nwant %q", args, res, err, want)
		}
	}
}
