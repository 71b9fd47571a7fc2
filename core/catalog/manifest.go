package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Manifest is everything a plugin serves, as learned the last time it ran.
type Manifest struct {
	Info      protov1.Info
	Tools     []protov1.Tool
	Resources []protov1.Resource
	Templates []protov1.ResourceTemplate
	Prompts   []protov1.Prompt
}

// ManifestStore keeps manifests on disk so a lazy plugin's tools are searchable
// before it ever starts. A manifest is keyed by plugin name, a hash of its
// config and the identity of its binary: any change makes the old one unused.
type ManifestStore struct {
	Dir string
}

// ManifestKey identifies one plugin setup.
func ManifestKey(plugin string, config []byte, binary string) string {
	h := sha256.New()
	h.Write(config)
	h.Write([]byte{0})
	if st, err := os.Stat(binary); err == nil {
		fmt.Fprintf(h, "%s|%d|%d", binary, st.Size(), st.ModTime().UnixNano())
	} else {
		h.Write([]byte(binary))
	}
	return plugin + "-" + hex.EncodeToString(h.Sum(nil)[:12])
}

func (s ManifestStore) path(key string) string {
	return filepath.Join(s.Dir, "manifests", key+".json")
}

// Load returns the stored manifest, or nil when there is none.
func (s ManifestStore) Load(key string) (*Manifest, error) {
	if s.Dir == "" {
		return nil, nil
	}
	b, err := os.ReadFile(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest %s is corrupt: %w", s.path(key), err)
	}
	return &m, nil
}

// Save stores a manifest atomically (write to a temp file, then rename).
func (s ManifestStore) Save(key string, m *Manifest) error {
	if s.Dir == "" {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path(key))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save manifest: %w", err)
	}
	tmp, err := os.CreateTemp(dir, key+".*.tmp")
	if err != nil {
		return fmt.Errorf("save manifest: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("save manifest: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save manifest: %w", err)
	}
	return os.Rename(tmp.Name(), s.path(key))
}
