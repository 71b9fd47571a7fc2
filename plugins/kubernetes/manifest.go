package kubernetes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// maxManifestObjects bounds one apply call, so a mistaken paste cannot turn
// into hundreds of writes.
const maxManifestObjects = 100

// ErrBadManifest marks a manifest that cannot be applied as written.
var ErrBadManifest = errors.New("bad manifest")

// decodeManifest reads the objects of a YAML or JSON manifest: several
// documents separated by ---, JSON objects one after another, or a List.
func decodeManifest(text string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(text), 4096)
	var out []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %v: %w", doc, err, ErrBadManifest)
		}
		if trimmed := strings.TrimSpace(string(raw)); trimmed == "" || trimmed == "null" || trimmed == "{}" {
			continue
		}
		objs, err := decodeDocument(raw)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		out = append(out, objs...)
		if len(out) > maxManifestObjects {
			return nil, fmt.Errorf("more than %d objects; apply them in smaller parts: %w", maxManifestObjects, ErrBadManifest)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no objects in the manifest: %w", ErrBadManifest)
	}
	return out, nil
}

func decodeDocument(raw []byte) ([]*unstructured.Unstructured, error) {
	var probe map[string]any
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("not an object: %v: %w", err, ErrBadManifest)
	}
	decoded, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, ErrBadManifest)
	}
	var objs []*unstructured.Unstructured
	switch o := decoded.(type) {
	case *unstructured.Unstructured:
		objs = []*unstructured.Unstructured{o}
	case *unstructured.UnstructuredList:
		for i := range o.Items {
			objs = append(objs, &o.Items[i])
		}
	default:
		return nil, fmt.Errorf("unexpected %T: %w", decoded, ErrBadManifest)
	}
	for _, o := range objs {
		if err := checkObject(o); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

func checkObject(o *unstructured.Unstructured) error {
	var missing []string
	if o.GetAPIVersion() == "" {
		missing = append(missing, "apiVersion")
	}
	if o.GetKind() == "" {
		missing = append(missing, "kind")
	}
	if o.GetName() == "" {
		missing = append(missing, "metadata.name (server-side apply cannot use generateName)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s %q lacks %s: %w", o.GetKind(), o.GetName(), strings.Join(missing, ", "), ErrBadManifest)
	}
	return nil
}
