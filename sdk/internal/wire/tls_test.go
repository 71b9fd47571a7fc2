package wire

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
)

func pool(t *testing.T, c tls.Certificate) *x509.CertPool {
	t.Helper()
	p := x509.NewCertPool()
	p.AddCert(c.Leaf)
	return p
}

// handshake runs a TLS handshake between a client and a server config over
// an in-memory connection and returns the client's error.
func handshake(client, server *tls.Config) error {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	done := make(chan error, 1)
	go func() {
		s := tls.Server(b, server)
		done <- s.Handshake()
		s.Close()
	}()
	c := tls.Client(a, client)
	err := c.Handshake()
	c.Close()
	if serr := <-done; err == nil {
		err = serr
	}
	return err
}

func TestMutualTLSTrustsOnlyThePeer(t *testing.T) {
	host, _, _, err := NewCertificate()
	if err != nil {
		t.Fatal(err)
	}
	plugin, _, _, err := NewCertificate()
	if err != nil {
		t.Fatal(err)
	}
	stranger, _, _, err := NewCertificate()
	if err != nil {
		t.Fatal(err)
	}
	// The host dials the plugin, and the plugin dials back through the broker.
	if err := handshake(MutualTLS(host, pool(t, plugin)), MutualTLS(plugin, pool(t, host))); err != nil {
		t.Fatalf("host to plugin: %v", err)
	}
	if err := handshake(MutualTLS(plugin, pool(t, host)), MutualTLS(host, pool(t, plugin))); err != nil {
		t.Fatalf("plugin to host: %v", err)
	}
	if handshake(MutualTLS(stranger, pool(t, plugin)), MutualTLS(plugin, pool(t, host))) == nil {
		t.Error("plugin accepted a client that is not its host")
	}
	if handshake(MutualTLS(host, pool(t, plugin)), MutualTLS(stranger, pool(t, host))) == nil {
		t.Error("host accepted a server that is not its plugin")
	}
}

func TestCertificatePEMRoundTrips(t *testing.T) {
	_, certPEM, keyPEM, err := NewCertificate()
	if err != nil {
		t.Fatal(err)
	}
	// The plugin reads both from one variable.
	pair := append(append([]byte(nil), certPEM...), keyPEM...)
	if _, err := tls.X509KeyPair(pair, pair); err != nil {
		t.Fatal(err)
	}
}
