package kubernetes

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
)

// secretNote is appended to any answer that hid Secret values, so the
// assistant knows the values exist and who can show them.
const secretNote = "Secret values are hidden (keys and sizes only); the operator can reveal named Secrets with the plugin's reveal_secrets setting."

// secretPolicy decides which Secrets' values may reach the model: none,
// unless the operator named them ("namespace/name") in reveal_secrets.
type secretPolicy struct {
	reveal map[string]bool
}

func isSecret(obj map[string]any) bool {
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	return kind == "Secret" && apiVersion == "v1"
}

// redact replaces every value of a Secret by its size, in place, unless the
// operator revealed that Secret; it reports whether it hid anything. The
// keys stay: "which keys does it have, is tls.crt empty" is what diagnosis
// needs, and neither needs a value.
func (p secretPolicy) redact(obj map[string]any) bool {
	if !isSecret(obj) {
		return false
	}
	m := metaOf(obj)
	if p.reveal[m.namespace+"/"+m.name] {
		return false
	}
	hid := false
	for _, field := range []string{"data", "stringData"} {
		values, ok := obj[field].(map[string]any)
		if !ok {
			continue
		}
		for key, v := range values {
			values[key] = hiddenValue(secretSize(field, v))
			hid = true
		}
	}
	// kubectl's last-applied copy repeats the whole Secret, values included.
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			delete(ann, lastApplied)
		}
	}
	return hid
}

// secretKeys lists a Secret's keys with the size of each value, for describe.
func secretKeys(obj map[string]any) []field {
	values, _ := obj["data"].(map[string]any)
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]field, len(keys))
	for i, k := range keys {
		out[i] = field{k, fmt.Sprintf("%d bytes", secretSize("data", values[k]))}
	}
	return out
}

// secretSize is the decoded size of a value: data holds base64, stringData
// plain text.
func secretSize(field string, v any) int {
	s, _ := v.(string)
	if field == "data" {
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return len(b)
		}
	}
	return len(s)
}

func hiddenValue(size int) string { return fmt.Sprintf("<hidden: %d bytes>", size) }

// parseRevealList checks reveal_secrets entries, which must name one Secret
// each as namespace/name.
func parseRevealList(entries []string) (map[string]bool, []string) {
	out := map[string]bool{}
	var bad []string
	for _, e := range entries {
		ns, name, ok := strings.Cut(strings.TrimSpace(e), "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			bad = append(bad, e)
			continue
		}
		out[ns+"/"+name] = true
	}
	return out, bad
}
