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

// ServerOptions are the plugin side's gRPC settings.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.StaticStreamWindowSize(streamWindow),
		grpc.StaticConnWindowSize(connWindow),
	}
}

// DialOptions are the host side's gRPC settings.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithStaticStreamWindowSize(streamWindow),
		grpc.WithStaticConnWindowSize(connWindow),
	}
}
