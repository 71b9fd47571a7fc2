package wire

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/toolgate/toolgate/sdk/internal/pluginv1"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Text that is not UTF-8 still travels: each bad byte becomes U+FFFD, where
// protobuf would refuse the whole result.
func TestInvalidUTF8TextTravels(t *testing.T) {
	r := &protov1.Result{Content: []protov1.Content{
		{Kind: protov1.KindText, Text: "caf\xc3"},
		{Kind: protov1.KindResource, Resource: &protov1.ResourceContents{URI: "file:///x", Text: "\x99ok"}},
	}}
	b, err := proto.Marshal(resultToPB(r))
	if err != nil {
		t.Fatalf("a result with a stray byte does not marshal: %v", err)
	}
	var back pluginv1.CallToolResult
	if err := proto.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := resultFromPB(&back)
	if got.Content[0].Text != "caf\uFFFD" || got.Content[1].Resource.Text != "\uFFFDok" {
		t.Errorf("texts arrived as %q and %q", got.Content[0].Text, got.Content[1].Resource.Text)
	}
}
