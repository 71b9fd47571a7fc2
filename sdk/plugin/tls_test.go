package plugin

import (
	"os"
	"testing"

	"github.com/toolgate/toolgate/sdk/internal/wire"
)

func TestServerTLSFromTheHost(t *testing.T) {
	_, hostPEM, _, err := wire.NewCertificate()
	if err != nil {
		t.Fatal(err)
	}
	_, certPEM, keyPEM, err := wire.NewCertificate()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(wire.EnvClientCert, string(hostPEM))
	t.Setenv(wire.EnvServerTLS, string(certPEM)+string(keyPEM))
	provider := serverTLS()
	if provider == nil {
		t.Fatal("no TLS provider although the host gave a certificate")
	}
	if _, ok := os.LookupEnv(wire.EnvServerTLS); ok {
		t.Error("the key stays in the environment, where child processes inherit it")
	}
	cfg, err := provider()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Certificates) != 1 || cfg.ClientAuth.String() != "RequireAndVerifyClientCert" {
		t.Errorf("config = %+v", cfg)
	}
}

func TestServerTLSLeavesAutoMTLSWithoutTheHostsCertificate(t *testing.T) {
	t.Setenv(wire.EnvClientCert, "cert")
	os.Unsetenv(wire.EnvServerTLS)
	if serverTLS() != nil {
		t.Error("a provider without a certificate from the host")
	}
}
