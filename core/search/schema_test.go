package search

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestParamsFromSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"type":{"type":"string","description":"Patch type.","enum":["merge","json","strategic"]},
		"levels":{"type":"array","items":{"type":"string","enum":["info","warning"]}},
		"count":{"type":"integer","enum":[1,2,3]},
		"name":{"type":"string"}}}`)
	want := []Param{
		{Name: "count"},
		{Name: "levels", Enum: []string{"info", "warning"}},
		{Name: "name"},
		{Name: "type", Description: "Patch type.", Enum: []string{"merge", "json", "strategic"}},
	}
	if got := ParamsFromSchema(schema); !reflect.DeepEqual(got, want) {
		t.Errorf("ParamsFromSchema = %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{``, `[]`, `{"properties":[]}`, `not json`} {
		if got := ParamsFromSchema(json.RawMessage(bad)); len(got) != 0 {
			t.Errorf("ParamsFromSchema(%q) = %+v, want none", bad, got)
		}
	}
}

// TestEnumValuesAreSearchable: the values a parameter allows name what a
// tool can do, even when its description does not repeat them.
func TestEnumValuesAreSearchable(t *testing.T) {
	ix := NewIndex()
	ix.Replace("k8s", []Doc{
		{ID: "x_k8s_restart", Name: "restart", Description: "Restart a workload.",
			Params: []Param{{Name: "kind", Enum: []string{"deployment", "statefulset", "daemonset"}}}},
		{ID: "x_k8s_delete", Name: "delete", Description: "Delete an object.",
			Params: []Param{{Name: "kind"}}},
	})
	got := ids(t, ix, Query{Text: "daemonset", Limit: 5})
	if len(got) != 1 || got[0] != "x_k8s_restart" {
		t.Errorf("Search(daemonset) = %v, want [x_k8s_restart]", got)
	}
}
