package kubernetes

import (
	"errors"
	"testing"
)

func TestDecodeManifest(t *testing.T) {
	cases := []struct {
		name     string
		manifest string
		want     []string // kind/name of each object
	}{
		{"one yaml document", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n", []string{"ConfigMap/a"}},
		{"several documents with empties", "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: b\n", []string{"ConfigMap/a", "Deployment/b"}},
		{"json object", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`, []string{"Secret/s"}},
		{"json stream", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}} {"apiVersion":"v1","kind":"Service","metadata":{"name":"svc"}}`, []string{"Secret/s", "Service/svc"}},
		{"list", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n", []string{"ConfigMap/a", "ConfigMap/b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := decodeManifest(tc.manifest)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.GetKind()+"/"+o.GetName())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("objects = %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("object %d = %s, want %s", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestDecodeManifestRejects(t *testing.T) {
	for name, manifest := range map[string]string{
		"empty":         "",
		"only comments": "# nothing\n---\n",
		"no kind":       "apiVersion: v1\nmetadata: {name: a}\n",
		"no name":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: a-}\n",
		"no apiVersion": "kind: ConfigMap\nmetadata: {name: a}\n",
		"scalar":        "hello",
		"broken yaml":   "apiVersion: v1\nkind: [\n",
		"list item bad": "apiVersion: v1\nkind: List\nitems:\n- {kind: ConfigMap}\n",
	} {
		if _, err := decodeManifest(manifest); !errors.Is(err, ErrBadManifest) {
			t.Errorf("%s: err = %v, want ErrBadManifest", name, err)
		}
	}
}

func FuzzDecodeManifest(f *testing.F) {
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	f.Add(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}`)
	f.Add("---\n---\nkind: x\n")
	f.Fuzz(func(t *testing.T, manifest string) {
		objs, err := decodeManifest(manifest)
		if err != nil {
			if !errors.Is(err, ErrBadManifest) {
				t.Fatalf("error %v does not wrap ErrBadManifest", err)
			}
			return
		}
		if len(objs) == 0 || len(objs) > maxManifestObjects {
			t.Fatalf("%d objects without an error", len(objs))
		}
		for _, o := range objs {
			if o.GetName() == "" || o.GetKind() == "" || o.GetAPIVersion() == "" {
				t.Fatalf("object without identity accepted: %v", o.Object)
			}
		}
	})
}
