package pluginhost

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"sync"

	"github.com/toolgate/toolgate/sdk/internal/wire"
)

// The host's half of the mutual TLS between host and plugin (see
// wire.EnvServerTLS). go-plugin's AutoMTLS makes a new P-521 certificate for
// the host before every plugin start and has the plugin make another; here
// the host makes its own P-256 certificate once, and one for each plugin
// start, which costs well under a millisecond.
var hostCertificate = sync.OnceValues(func() (*hostCert, error) {
	cert, certPEM, _, err := wire.NewCertificate()
	if err != nil {
		return nil, err
	}
	return &hostCert{tls: cert, pem: string(certPEM)}, nil
})

type hostCert struct {
	tls tls.Certificate
	pem string
}

// clientTLS is the TLS configuration of one plugin connection, and the
// environment that hands the plugin its half. It is new for each start: it
// trusts that start's plugin certificate alone. A plugin that does AutoMTLS
// instead sends a certificate of its own in its handshake, and go-plugin
// trusts that one in its place.
func clientTLS() (*tls.Config, []string, error) {
	host, err := hostCertificate()
	if err != nil {
		return nil, nil, fmt.Errorf("host certificate for plugin TLS: %w", err)
	}
	plugin, certPEM, keyPEM, err := wire.NewCertificate()
	if err != nil {
		return nil, nil, fmt.Errorf("plugin certificate: %w", err)
	}
	peer := x509.NewCertPool()
	peer.AddCert(plugin.Leaf)
	env := []string{
		wire.EnvClientCert + "=" + host.pem,
		wire.EnvServerTLS + "=" + string(certPEM) + string(keyPEM),
	}
	return wire.MutualTLS(host.tls, peer), env, nil
}
