package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// A plugin's `config {}` block is free-form: attributes become JSON members, a nested
// block becomes an object, repeated blocks of one type become an array, and block labels
// become nested object keys (`upstream "a" { ... }` → {"upstream": {"a": {...}}}).
// Alongside the JSON we keep where each value was written, because the plugin, not this
// package, validates it and its field errors must still point into the file.

// fieldRanges maps a path (segments joined by pathSep) to its source range.
type fieldRanges map[string]hcl.Range

// pathSep cannot occur in an HCL identifier, and is unlikely in a map key.
const pathSep = "\x00"

func (fr fieldRanges) set(path []string, r hcl.Range) {
	fr[strings.Join(path, pathSep)] = r
}

// lookupFunc answers with the range of the longest known prefix of a path, falling back
// to decl when not even the config block exists.
func (fr fieldRanges) lookupFunc(decl hcl.Range) func(string) hcl.Range {
	return func(path string) hcl.Range {
		segs := splitFieldPath(path)
		for n := len(segs); n >= 0; n-- {
			if r, ok := fr[strings.Join(segs[:n], pathSep)]; ok {
				return r
			}
		}
		return decl
	}
}

// splitFieldPath accepts the dotted form ("headers.X-Id") and JSON pointers
// ("/headers/X-Id"), which is what JSON Schema validators report.
func splitFieldPath(path string) []string {
	if path == "" || path == "/" {
		return nil
	}
	if rest, ok := strings.CutPrefix(path, "/"); ok {
		segs := strings.Split(rest, "/")
		for i, s := range segs {
			segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		}
		return segs
	}
	return strings.Split(path, ".")
}

// pluginConfigJSON converts a config block (nil when absent) to a JSON object.
func pluginConfigJSON(block *configSpec, ctx *hcl.EvalContext) (json.RawMessage, fieldRanges, hcl.Diagnostics) {
	ranges := fieldRanges{}
	if block == nil {
		return json.RawMessage("{}"), ranges, nil
	}
	ranges.set(nil, block.DefRange)
	body, ok := block.Body.(*hclsyntax.Body)
	if !ok {
		return json.RawMessage("{}"), ranges, hcl.Diagnostics{errorf(block.DefRange, "config block is not in HCL native syntax")}
	}
	obj, diags := bodyJSON(body, nil, ctx, ranges)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		diags = append(diags, errorf(block.DefRange, "config block cannot be written as JSON: %v", err))
		return json.RawMessage("{}"), ranges, diags
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), ranges, diags
}

func child(path []string, seg string) []string {
	out := make([]string, len(path), len(path)+1)
	copy(out, path)
	return append(out, seg)
}

func bodyJSON(body *hclsyntax.Body, path []string, ctx *hcl.EvalContext, ranges fieldRanges) (map[string]any, hcl.Diagnostics) {
	obj := map[string]any{}
	var diags hcl.Diagnostics
	for name, attr := range body.Attributes {
		val, ds := attr.Expr.Value(ctx)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			continue
		}
		jv, err := ctyToJSON(val)
		if err != nil {
			diags = append(diags, errorf(attr.Expr.Range(), "%s: %v", name, err))
			continue
		}
		obj[name] = jv
		recordExpr(attr.Expr, child(path, name), ctx, ranges)
	}

	var order []string
	byType := map[string][]*hclsyntax.Block{}
	for _, b := range body.Blocks {
		if _, seen := byType[b.Type]; !seen {
			order = append(order, b.Type)
		}
		byType[b.Type] = append(byType[b.Type], b)
	}
	for _, typ := range order {
		blocks := byType[typ]
		if _, clash := body.Attributes[typ]; clash {
			diags = append(diags, errorf(blocks[0].DefRange(), "%q is set both as an argument and as a block", typ))
			continue
		}
		if b, ok := mixedLabels(blocks); ok {
			diags = append(diags, errorf(b.DefRange(), "%q blocks must all have the same number of labels", typ))
			continue
		}
		diags = append(diags, blocksJSON(obj, typ, blocks, path, ctx, ranges)...)
	}
	return obj, diags
}

// mixedLabels returns the first block whose label count differs from the first one's.
func mixedLabels(blocks []*hclsyntax.Block) (*hclsyntax.Block, bool) {
	for _, b := range blocks[1:] {
		if len(b.Labels) != len(blocks[0].Labels) {
			return b, true
		}
	}
	return nil, false
}

// blocksJSON stores the blocks of one type in obj: under their type, then one nested
// object per label; where several blocks share a full label path they form an array.
func blocksJSON(obj map[string]any, typ string, blocks []*hclsyntax.Block, path []string, ctx *hcl.EvalContext, ranges fieldRanges) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var order []string
	groups := map[string][]*hclsyntax.Block{}
	for _, b := range blocks {
		k := strings.Join(b.Labels, pathSep)
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], b)
	}
	for _, k := range order {
		group := groups[k]
		keys := append([]string{typ}, group[0].Labels...)
		parent, p := obj, path
		for _, seg := range keys[:len(keys)-1] {
			p = child(p, seg)
			if _, ok := ranges[strings.Join(p, pathSep)]; !ok {
				ranges.set(p, group[0].DefRange())
			}
			next, ok := parent[seg].(map[string]any)
			if !ok {
				next = map[string]any{}
				parent[seg] = next
			}
			parent = next
		}
		last := keys[len(keys)-1]
		p = child(p, last)
		ranges.set(p, group[0].DefRange())
		if len(group) == 1 {
			v, ds := bodyJSON(group[0].Body, p, ctx, ranges)
			diags = append(diags, ds...)
			parent[last] = v
			continue
		}
		arr := make([]any, len(group))
		for i, b := range group {
			ip := child(p, strconv.Itoa(i))
			ranges.set(ip, b.DefRange())
			v, ds := bodyJSON(b.Body, ip, ctx, ranges)
			diags = append(diags, ds...)
			arr[i] = v
		}
		parent[last] = arr
	}
	return diags
}

// recordExpr notes where each element of a literal list or object was written; values
// computed by functions are known only as a whole.
func recordExpr(expr hclsyntax.Expression, path []string, ctx *hcl.EvalContext, ranges fieldRanges) {
	ranges.set(path, expr.Range())
	switch e := expr.(type) {
	case *hclsyntax.ParenthesesExpr:
		recordExpr(e.Expression, path, ctx, ranges)
	case *hclsyntax.TupleConsExpr:
		for i, el := range e.Exprs {
			recordExpr(el, child(path, strconv.Itoa(i)), ctx, ranges)
		}
	case *hclsyntax.ObjectConsExpr:
		for _, item := range e.Items {
			k, diags := item.KeyExpr.Value(ctx)
			if diags.HasErrors() || !k.IsKnown() || k.IsNull() {
				continue
			}
			ks, err := convert.Convert(k, cty.String)
			if err != nil || !ks.IsKnown() || ks.IsNull() {
				continue
			}
			recordExpr(item.ValueExpr, child(path, ks.AsString()), ctx, ranges)
		}
	}
}

var errNotJSON = errors.New("value cannot be written as JSON")

// ctyToJSON converts an evaluated value to what encoding/json writes, keeping numbers
// exact (json.Number) so that 9007199254740993 survives the trip.
func ctyToJSON(v cty.Value) (any, error) {
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("%w: not known", errNotJSON)
	}
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		return jsonNumber(v.AsBigFloat())
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		arr := make([]any, 0, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			jv, err := ctyToJSON(ev)
			if err != nil {
				return nil, err
			}
			arr = append(arr, jv)
		}
		return arr, nil
	case ty.IsMapType() || ty.IsObjectType():
		obj := make(map[string]any, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			jv, err := ctyToJSON(ev)
			if err != nil {
				return nil, err
			}
			obj[k.AsString()] = jv
		}
		return obj, nil
	default:
		return nil, fmt.Errorf("%w: type %s", errNotJSON, ty.FriendlyName())
	}
}

// maxPlainIntBits bounds integers written digit by digit; beyond it (1e400) the exponent
// form keeps the JSON small.
const maxPlainIntBits = 1024

func jsonNumber(f *big.Float) (json.Number, error) {
	if f.IsInf() {
		return "", fmt.Errorf("%w: infinite number", errNotJSON)
	}
	if f.IsInt() && f.MantExp(nil) <= maxPlainIntBits {
		return json.Number(f.Text('f', 0)), nil
	}
	return json.Number(f.Text('g', -1)), nil
}
