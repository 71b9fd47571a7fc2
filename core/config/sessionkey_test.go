package config

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

var (
	keyA = bytes.Repeat([]byte{0xfb}, 32) // encodes with + and / in standard base64
	keyB = bytes.Repeat([]byte{2}, 48)
)

func TestSessionKeyFromFile(t *testing.T) {
	t.Setenv("TEST_SESSION_KEY", base64.StdEncoding.EncodeToString(keyA)+", "+base64.RawURLEncoding.EncodeToString(keyB))
	c, err := Parse([]byte("listen {\n  session_key     = env(\"TEST_SESSION_KEY\")\n  session_max_age = \"8h\"\n}\n"), "t.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Listen.SessionKeys) != 2 || !bytes.Equal(c.Listen.SessionKeys[0], keyA) || !bytes.Equal(c.Listen.SessionKeys[1], keyB) {
		t.Errorf("session keys %x, want the new key then the old", c.Listen.SessionKeys)
	}
	if c.Listen.SessionMaxAge != 8*time.Hour {
		t.Errorf("session_max_age %v, want 8h", c.Listen.SessionMaxAge)
	}

	c, err = Parse([]byte("listen {\n  session_key = env(\"TEST_UNSET_KEY\", \"\")\n}\n"), "t.hcl")
	if err != nil || c.Listen.SessionKeys != nil || c.Listen.SessionMaxAge != DefaultSessionMaxAge {
		t.Errorf("an empty session_key: %v %x %v, want no keys and the default max age", err, c.Listen.SessionKeys, c.Listen.SessionMaxAge)
	}
}

func TestSessionKeyErrors(t *testing.T) {
	short := base64.StdEncoding.EncodeToString(keyA[:16])
	good := base64.StdEncoding.EncodeToString(keyA)
	for src, want := range map[string]string{
		`session_key = "` + short + `"`:              "t.hcl:2:17: session_key decodes to 16 bytes; use at least 32 random bytes",
		`session_key = "not base64 at all!!"`:        "t.hcl:2:17: session_key is not base64",
		`session_key = "` + good + `,` + short + `"`: "t.hcl:2:17: session_key (key 2 of 2) decodes to 16 bytes",
		`session_key = "` + good + `,"`:              "t.hcl:2:17: session_key (key 2 of 2) is not base64 (empty)",
		`session_key = 3232`:                         "t.hcl:2:17: session_key decodes to 3 bytes",
		`session_max_age = "0s"`:                     "t.hcl:2:21: session_max_age must be greater than zero",
	} {
		_, err := Parse([]byte("listen {\n  "+src+"\n}\n"), "t.hcl")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", src, err, want)
		}
		if err != nil && strings.Contains(err.Error(), short) {
			t.Errorf("%s: the error quotes the key: %v", src, err)
		}
	}
}

func TestSessionKeyFromEnvironment(t *testing.T) {
	c, err := Parse([]byte("listen {}\n"), "t.hcl")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TOOLGATE_SESSION_KEY", base64.StdEncoding.EncodeToString(keyB))
	if err := c.Layer(nil); err != nil {
		t.Fatal(err)
	}
	if len(c.Listen.SessionKeys) != 1 || !bytes.Equal(c.Listen.SessionKeys[0], keyB) {
		t.Errorf("session keys %x from the environment", c.Listen.SessionKeys)
	}

	t.Setenv("TOOLGATE_SESSION_KEY", "c2hvcnQ=")
	err = c.Layer(nil)
	if err == nil || err.Error() != "TOOLGATE_SESSION_KEY: session_key decodes to 5 bytes; use at least 32 random bytes, e.g. `openssl rand -base64 32`" {
		t.Errorf("a short key in the environment: %v", err)
	}
}
