package pluginhost

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"sync"
	"time"
)

// The host's half of the mutual TLS between host and plugin. go-plugin's
// AutoMTLS makes a new P-521 key and certificate for every plugin start,
// before the process is even launched, so every restart after a crash waited
// for it (P-521 has no assembly implementation in Go: about 7 ms of CPU
// to make one, more under load). The host makes one P-256 certificate when
// it first starts a plugin and hands it to every plugin the way AutoMTLS
// does, in PLUGIN_CLIENT_CERT. Nothing changes for plugins, whatever SDK
// version built them: each still answers with a fresh certificate of its
// own, which the host trusts for that one connection only.
var hostCertificate = sync.OnceValues(func() (*hostCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	// The same fields as go-plugin's own: the plugin checks this
	// certificate against itself as its only client CA.
	template := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{"toolgate"}},
		DNSNames:              []string{"localhost"},
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageKeyAgreement | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		SerialNumber:          serial,
		NotBefore:             time.Now().Add(-30 * time.Second),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, key.Public(), key)
	if err != nil {
		return nil, err
	}
	return &hostCert{
		tls: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
	}, nil
})

type hostCert struct {
	tls tls.Certificate
	pem string // what the plugin reads from PLUGIN_CLIENT_CERT
}

// clientTLS is the TLS configuration of one plugin connection. It is new
// for each: go-plugin pins the certificate the plugin sends in its
// handshake as the configuration's only root.
func clientTLS() (*tls.Config, string, error) {
	cert, err := hostCertificate()
	if err != nil {
		return nil, "", fmt.Errorf("host certificate for plugin TLS: %w", err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert.tls},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS12,
		ServerName:   "localhost",
	}, "PLUGIN_CLIENT_CERT=" + cert.pem, nil
}
