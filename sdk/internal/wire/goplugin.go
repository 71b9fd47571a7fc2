package wire

import (
	"context"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/toolgate/toolgate/sdk/internal/pluginv1"
)

// Handshake is shared by host and plugins. The cookie only keeps a plugin binary
// from being run by hand by mistake; it is not a security measure.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "TOOLGATE_PLUGIN",
	MagicCookieValue: "d6c1c0a5-toolgate-plugin-v1",
}

// PluginName is the key of the one plugin a toolgate plugin process serves.
const PluginName = "toolgate"

// GRPCPlugin is the go-plugin glue for protocol v1. The plugin side sets Impl;
// the host side leaves it nil and gets a *Client.
type GRPCPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	Impl *Server
}

func (p *GRPCPlugin) GRPCServer(broker *goplugin.GRPCBroker, s *grpc.Server) error {
	p.Impl.Broker = broker
	pluginv1.RegisterPluginServer(s, p.Impl)
	return nil
}

func (p *GRPCPlugin) GRPCClient(_ context.Context, broker *goplugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return &Client{RPC: pluginv1.NewPluginClient(cc), Broker: broker}, nil
}

// VersionedPlugins is what both sides hand go-plugin: protocol v1 today, and the
// place a v2 goes beside it.
func VersionedPlugins(server *Server) map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{1: {PluginName: &GRPCPlugin{Impl: server}}}
}

var _ goplugin.GRPCPlugin = (*GRPCPlugin)(nil)
