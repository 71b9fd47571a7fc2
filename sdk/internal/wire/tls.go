package wire

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"time"
)

// Mutual TLS between host and plugin, as go-plugin's AutoMTLS sets it up
// but cheaper to start. AutoMTLS has the plugin make a P-521 key and
// certificate of its own before it can answer the handshake; the first
// P-521 operation in a fresh process costs tens of milliseconds of CPU (Go
// has no assembly for P-521 and builds its tables on first use), and every
// restart after a crash waited for it. The host instead makes the plugin's
// P-256 key and certificate and hands them over in EnvServerTLS; a plugin
// built with an SDK that knows the variable serves with them, and an older
// one ignores it and does AutoMTLS as before, which the host still accepts.
const (
	// EnvClientCert is go-plugin's own variable: the host's certificate,
	// the only client a plugin accepts.
	EnvClientCert = "PLUGIN_CLIENT_CERT"
	// EnvServerTLS holds the PEM certificate and key the plugin serves
	// with. The plugin removes it from its environment before anything
	// it starts could inherit it.
	EnvServerTLS = "TOOLGATE_PLUGIN_TLS"
)

// NewCertificate makes a self-signed P-256 certificate for localhost, usable
// by either end of the connection (a plugin dials the host back through
// go-plugin's broker), with the fields AutoMTLS gives its own.
func NewCertificate() (cert tls.Certificate, certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
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
		return tls.Certificate{}, nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// MutualTLS is one end's configuration: it presents own and trusts peer
// alone, as client and as server.
func MutualTLS(own tls.Certificate, peer *x509.CertPool) *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{own},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    peer,
		RootCAs:      peer,
		MinVersion:   tls.VersionTLS12,
		ServerName:   "localhost",
	}
}
