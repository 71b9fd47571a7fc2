package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/core/client"
)

func init() { clientCommands = append(clientCommands, callCmd) }

func callCmd() *cobra.Command {
	var (
		f       clientFlags
		args    []string
		raw     string
		outDir  string
		timeout time.Duration
		yes     bool
	)
	c := &cobra.Command{
		Use:   "call NAME [--arg key=value ...] [--json '{...}']",
		Short: "Call a tool through the gateway and print its result (exit status 1 if the tool reports an error)",
		Long: "Call a plugin tool (x_*) or core tool (core_*) through call_tool.\n\n" +
			"--arg values are typed by the tool's input schema (integers, numbers, booleans,\n" +
			"arrays as JSON or comma-separated, objects as JSON); --json gives the whole\n" +
			"argument object, and --arg values override its keys. Progress the tool reports\n" +
			"is shown on stderr; images and binary resources are saved under --out.\n\n" +
			"A tool that may delete or overwrite data runs only once confirmed (the plugin's\n" +
			"destructive setting): you are asked on the terminal, --yes confirms without asking,\n" +
			"and without a terminal or --yes the call is declined.",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeTools(&f),
		RunE: func(cmd *cobra.Command, pos []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cmd.SetContext(ctx)
			if timeout < 0 {
				return fmt.Errorf("--timeout %s: want a positive time limit, such as 30s or 2m", timeout)
			}
			if err := checkName(pos[0], "tool", "toolgate tools list"); err != nil {
				return err
			}
			if err := argsNotFlags(cmd, args); err != nil {
				return err
			}
			base, err := jsonArguments(raw)
			if err != nil {
				return err
			}
			f.elicit = confirmer(cmd.InOrStdin(), cmd.ErrOrStderr(), yes)
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			name := pos[0]
			// The lookup types each --arg by the schema and tells the CLI
			// whose plugin a failed call needs; the gateway's refusal of it
			// is the answer, said in the CLI's words where a lookup can.
			d, err := s.DescribeTool(ctx, name)
			if err != nil {
				return toolFailure(cmd, toolLookupFailure(ctx, s, "call", name, err))
			}
			in, err := buildArguments(d, name, base, args)
			if err != nil {
				return err
			}
			bar := newProgressBar(cmd.ErrOrStderr())
			opts := []client.CallOption{client.WithProgress(bar.update)}
			if timeout > 0 {
				opts = append(opts, client.WithTimeout(timeout))
			}
			res, err := s.CallTool(ctx, name, in, opts...)
			bar.done()
			if err != nil {
				return err
			}
			if res.IsError {
				if fail := callFailure(ctx, s, d, res, timeout); fail != nil {
					return toolFailure(cmd, fail)
				}
			}
			if err := printResult(cmd, res, name, outDir, f.json()); err != nil {
				return err
			}
			if res.IsError {
				return exitError{code: 1}
			}
			return nil
		},
	}
	f.add(c)
	c.Flags().StringArrayVar(&args, "arg", nil, "argument key=value, typed by the tool's schema (repeatable)")
	c.Flags().StringVar(&raw, "json", "", "all arguments as a JSON object")
	c.Flags().StringVar(&outDir, "out", "", "save images, audio and binary resources into this directory")
	c.Flags().DurationVar(&timeout, "timeout", 0, "time limit of this call instead of the plugin's default")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "confirm a tool that may delete or overwrite data without asking")
	_ = c.RegisterFlagCompletionFunc("arg", completeArgs(&f))
	_ = c.MarkFlagDirname("out")
	return c
}

// argsNotFlags refuses an --arg whose value is one of call's own flags:
// pflag gives `--arg --url=…` the next word as its value, so a forgotten
// key=value would swallow the flag meant for the command.
func argsNotFlags(cmd *cobra.Command, args []string) error {
	for _, kv := range args {
		name, _, _ := strings.Cut(kv, "=")
		var fl *pflag.Flag
		switch {
		case strings.HasPrefix(name, "--"):
			fl = cmd.Flags().Lookup(name[2:])
		case strings.HasPrefix(name, "-") && len(name) == 2:
			fl = cmd.Flags().ShorthandLookup(name[1:])
		}
		if fl != nil {
			return fmt.Errorf("--arg %q: that is call's flag --%s, taken as the value of --arg; give --arg a key=value first "+
				"(a value that starts with a dash goes after its key: --arg key=%s)", kv, fl.Name, kv)
		}
	}
	return nil
}

// jsonArguments reads --json: a JSON object of arguments, or none.
func jsonArguments(raw string) (map[string]any, error) {
	if raw == "" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil, fmt.Errorf("--json: not valid JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`--json: want a JSON object of arguments, such as {"name": "Ada"}, not %s`, jsonKind(v))
	}
	return obj, nil
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	}
	return "an object"
}

// buildArguments sets the --arg values over the --json ones in out, typing
// each --arg by the tool's input schema.
func buildArguments(d *client.ToolDescription, tool string, out map[string]any, args []string) (map[string]any, error) {
	if len(args) == 0 {
		return out, nil
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(d.InputSchema, &schema)
	props := schema.Properties
	for _, kv := range args {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--arg %q: want key=value", kv)
		}
		// A key the schema does not name is most likely a typo; --json
		// still passes anything the tool may take beyond its schema.
		if _, known := props[k]; !known && len(props) > 0 {
			return nil, fmt.Errorf("--arg %s: %s has no argument %q; its arguments: %s (--json passes others as they are)",
				k, tool, k, strings.Join(slices.Sorted(maps.Keys(props)), ", "))
		}
		typed, err := typedValue(props[k], v)
		if err != nil {
			return nil, fmt.Errorf("--arg %s: %w", k, err)
		}
		out[k] = typed
	}
	return out, nil
}

func isToolError(err error) bool {
	var te *client.ToolError
	return errors.As(err, &te)
}

// typedValue reads v as the JSON Schema type of its property says; without
// a type, JSON if it parses as JSON, else the string itself.
func typedValue(schema json.RawMessage, v string) (any, error) {
	var s struct {
		Type  json.RawMessage `json:"type"`
		Items json.RawMessage `json:"items"`
	}
	_ = json.Unmarshal(schema, &s)
	var types []string
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		types = []string{one}
	} else {
		_ = json.Unmarshal(s.Type, &types)
	}
	if len(types) == 0 {
		var val any
		if json.Unmarshal([]byte(v), &val) == nil {
			return val, nil
		}
		return v, nil
	}
	var errs []string
	for _, t := range types {
		val, err := asType(t, s.Items, v)
		if err == nil {
			return val, nil
		}
		errs = append(errs, err.Error())
	}
	return nil, errors.New(strings.Join(errs, "; "))
}

func asType(t string, items json.RawMessage, v string) (any, error) {
	switch t {
	case "string":
		return v, nil
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want an integer, got %q", v)
		}
		return n, nil
	case "number":
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("want a number, got %q", v)
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %q", v)
		}
		return b, nil
	case "null":
		if v != "null" {
			return nil, fmt.Errorf("want null, got %q", v)
		}
		return nil, nil
	case "array":
		if strings.HasPrefix(strings.TrimSpace(v), "[") {
			var a []any
			if err := json.Unmarshal([]byte(v), &a); err != nil {
				return nil, fmt.Errorf("want a JSON array: %v", err)
			}
			return a, nil
		}
		out := []any{}
		if v == "" {
			return out, nil
		}
		for _, part := range strings.Split(v, ",") {
			item, err := typedValue(items, strings.TrimSpace(part))
			if err != nil {
				return nil, fmt.Errorf("item %q: %w", part, err)
			}
			out = append(out, item)
		}
		return out, nil
	default: // object, or a type this CLI does not know
		var val any
		if err := json.Unmarshal([]byte(v), &val); err != nil {
			return nil, fmt.Errorf("want a JSON %s: %v", t, err)
		}
		return val, nil
	}
}

// printResult shows a tool's result: the text it gave, binary parts saved
// under outDir; with asJSON the result itself, binary parts replaced by the
// files they were saved to. An isError result's text goes to stderr.
func printResult(cmd *cobra.Command, res *client.ToolResult, name, outDir string, asJSON bool) error {
	saved := map[int]string{}
	for i := range res.Content {
		c := &res.Content[i]
		if !isBinary(c) || outDir == "" {
			continue
		}
		path, err := saveBinary(c, outDir, fmt.Sprintf("%s-%d", name, i+1))
		if err != nil {
			return err
		}
		saved[i] = path
	}
	if asJSON {
		var out map[string]any
		if err := json.Unmarshal(res.Raw, &out); err != nil {
			return fmt.Errorf("read result: %w", err)
		}
		if blocks, ok := out["content"].([]any); ok {
			for i, path := range saved {
				if b, ok := blocks[i].(map[string]any); ok {
					delete(b, "data")
					if r, ok := b["resource"].(map[string]any); ok {
						delete(r, "blob")
					}
					b["file"] = path
				}
			}
		}
		return printJSON(cmd.OutOrStdout(), out)
	}
	w := cmd.OutOrStdout()
	if res.IsError {
		w = cmd.ErrOrStderr()
	}
	texts := 0
	for i := range res.Content {
		c := &res.Content[i]
		switch {
		case c.Type == "text":
			fmt.Fprintln(w, c.Text)
			texts++
		case isBinary(c):
			fmt.Fprintln(w, binaryLine(c, saved[i]))
		case c.Type == "resource" && c.Resource != nil:
			fmt.Fprintf(w, "[resource %s]\n%s\n", c.Resource.URI, c.Resource.Text)
		case c.Type == "resource_link":
			fmt.Fprintf(w, "[link %s %s]\n", c.URI, strings.TrimSpace(c.Name+" "+c.Description))
		default:
			fmt.Fprintf(w, "[%s content]\n", c.Type)
		}
	}
	if texts == 0 && len(res.StructuredContent) > 0 {
		var v any
		if json.Unmarshal(res.StructuredContent, &v) == nil {
			return printJSON(w, v)
		}
	}
	return nil
}

func isBinary(c *client.Content) bool {
	return c.Data != "" || (c.Resource != nil && c.Resource.Blob != "")
}

func binaryLine(c *client.Content, path string) string {
	mt := c.MIMEType
	if c.Resource != nil {
		mt = c.Resource.MIMEType
	}
	n := 0
	if b, err := c.Bytes(); err == nil {
		n = len(b)
	}
	if path == "" {
		return fmt.Sprintf("[%s %s, %d bytes; pass --out DIR to save it]", c.Type, mt, n)
	}
	return fmt.Sprintf("[%s %s, %d bytes saved to %s]", c.Type, mt, n, path)
}

// saveBinary writes a binary content block to dir/base plus an extension
// from its MIME type, and returns the path.
func saveBinary(c *client.Content, dir, base string) (string, error) {
	data, err := c.Bytes()
	if err != nil {
		return "", err
	}
	mt := c.MIMEType
	if c.Resource != nil {
		mt = c.Resource.MIMEType
	}
	ext := ".bin"
	if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
		ext = exts[len(exts)-1]
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("--out: %w", err)
	}
	path := filepath.Join(dir, safeName(base)+ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("--out: %w", err)
	}
	return path, nil
}

// safeName keeps a file name to letters, digits, '-', '_' and '.'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, s)
}

// progressBar draws a call's progress on stderr: redrawn in place on a
// terminal, one line per update otherwise (logs, CI).
type progressBar struct {
	w     io.Writer
	tty   bool
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	b := &progressBar{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil {
			b.tty = st.Mode()&os.ModeCharDevice != 0
		}
	}
	return b
}

func (b *progressBar) update(p client.Progress) {
	line := fmt.Sprintf("progress %g", p.Progress)
	if p.Total > 0 {
		const width = 30
		filled := min(width, max(0, int(p.Progress/p.Total*width)))
		line = fmt.Sprintf("[%s%s] %g/%g", strings.Repeat("#", filled), strings.Repeat("-", width-filled), p.Progress, p.Total)
	}
	if p.Message != "" {
		line += " " + p.Message
	}
	if b.tty {
		fmt.Fprintf(b.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(b.w, line)
	}
	b.drawn = true
}

func (b *progressBar) done() {
	if b.tty && b.drawn {
		fmt.Fprintln(b.w)
	}
}
