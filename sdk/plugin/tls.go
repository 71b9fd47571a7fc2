package plugin

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/sdk/internal/wire"
)

// serverTLS is go-plugin's TLSProvider for the certificate and key the host
// made for this process (see wire.EnvServerTLS), or nil when the host gave
// none, which leaves go-plugin's own AutoMTLS to make them. The key leaves
// the environment at once, so nothing the plugin starts inherits it.
func serverTLS() func() (*tls.Config, error) {
	pair, ok := os.LookupEnv(wire.EnvServerTLS)
	_ = os.Unsetenv(wire.EnvServerTLS)
	host := os.Getenv(wire.EnvClientCert)
	if !ok || host == "" {
		return nil
	}
	return func() (*tls.Config, error) {
		cert, err := tls.X509KeyPair([]byte(pair), []byte(pair))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", wire.EnvServerTLS, err)
		}
		peer := x509.NewCertPool()
		if !peer.AppendCertsFromPEM([]byte(host)) {
			return nil, errors.New(wire.EnvClientCert + " holds no certificate")
		}
		return wire.MutualTLS(cert, peer), nil
	}
}
