package wire

import "google.golang.org/grpc"

// Flow-control windows of the host–plugin connection. Fixed windows turn off
// gRPC's bandwidth-delay estimation, which otherwise answers every message
// received with a window update and a ping, and the ping with an ack: four
// extra writes and wake-ups across the socket on every call, for a connection
// to a local process where the estimate buys nothing. The windows are large
// enough that a multi-megabyte result streams without waiting for credit; they
// bound what may be in flight, not what is allocated.
const (
	streamWindow = 4 << 20
	connWindow   = 16 << 20
)

// MaxMessage bounds one message between host and plugin, either way. gRPC's
// default of 4 MiB refused a call whose arguments the gateway's
// max_request_bytes, raised past it, had let in, and a result (a file, an
// image) larger than that, with a bare "received message larger than max".
const MaxMessage = 64 << 20

// ServerOptions are the plugin side's gRPC settings.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.StaticStreamWindowSize(streamWindow),
		grpc.StaticConnWindowSize(connWindow),
		grpc.MaxRecvMsgSize(MaxMessage),
		grpc.MaxSendMsgSize(MaxMessage),
	}
}

// DialOptions are the host side's gRPC settings.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithStaticStreamWindowSize(streamWindow),
		grpc.WithStaticConnWindowSize(connWindow),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessage), grpc.MaxCallSendMsgSize(MaxMessage)),
	}
}
