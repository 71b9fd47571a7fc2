package main

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
)

// scaffold holds the files `plugin init` writes; they are templates so the
// plugin's name and the SDK's place go in, and .tmpl so Go does not build them
// as part of this command.
//
//go:embed scaffold/*.tmpl
var scaffold embed.FS

const sdkModule = "github.com/toolgate/toolgate/sdk"

// scaffoldData fills the templates.
type scaffoldData struct {
	Name       string // the plugin's name, also its config label
	Module     string // the new module's path
	SDKDir     string // a clone's sdk directory for the replace; "" when published
	SDKVersion string
	Toolgate   string // the toolgate binary `make run` serves with
}

func pluginInitCmd() *cobra.Command {
	var module, sdkDir string
	c := &cobra.Command{
		Use:   "init NAME [DIR]",
		Short: "Write a new plugin module: one tool, its test, a Makefile, a README and the config block that runs it",
		Long: `Write a new plugin module into DIR (default ./NAME), outside any other module.
It builds and its test passes as written. Until the SDK is published, its go.mod
points a replace at the sdk directory of a toolgate clone: --sdk, else the one
this toolgate binary was built in, found next to it or above the current directory.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if msg := checkScaffoldName(name); msg != "" {
				return errors.New(msg)
			}
			dir := name
			if len(args) == 2 {
				dir = args[1]
			}
			if module == "" {
				module = "example.com/" + name
			}
			sdk, err := findSDK(sdkDir)
			if err != nil {
				return err
			}
			data := scaffoldData{Name: name, Module: module, SDKDir: sdk, SDKVersion: "v0.0.0-00010101000000-000000000000",
				Toolgate: toolgateFor(self(), sdk)}
			if err := writeScaffold(dir, data); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote plugin %q in %s\nnext: cd %s && make test && make build\n", name, dir, dir)
			return nil
		},
	}
	c.Flags().StringVar(&module, "module", "", "module path of the new plugin (default example.com/NAME)")
	c.Flags().StringVar(&sdkDir, "sdk", "", "the sdk directory of a toolgate clone, for go.mod's replace")
	return c
}

// checkScaffoldName keeps the name usable as a config label, so the HCL block
// written beside the plugin is valid as it stands.
func checkScaffoldName(name string) string {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || name[0] == '-' {
		return fmt.Sprintf("invalid plugin name %q: use lowercase letters, digits and \"-\", starting with a letter or digit", name)
	}
	return ""
}

// findSDK returns the absolute sdk directory to replace the module with: the
// one given, else the clone this binary sits in (bin/toolgate), else one
// above the working directory.
func findSDK(given string) (string, error) {
	if given != "" {
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", err
		}
		if !isSDK(abs) {
			return "", fmt.Errorf("--sdk %s: no go.mod of module %s there", given, sdkModule)
		}
		return abs, nil
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			starts = append(starts, filepath.Dir(exe))
		}
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		for {
			if sdk := filepath.Join(dir, "sdk"); isSDK(sdk) {
				return sdk, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("cannot find the toolgate SDK (module %s is not published yet): pass --sdk with the sdk directory of a toolgate clone", sdkModule)
}

// toolgateFor is the toolgate binary the new module's Makefile serves with:
// this one when it was built in the clone whose SDK the module uses (a
// fresh clone's bin/toolgate is on no PATH), else whichever PATH finds.
func toolgateFor(exe, sdkDir string) string {
	if exe == "" || filepath.Dir(filepath.Dir(exe)) != filepath.Dir(sdkDir) || strings.ContainsAny(exe, " \t$'\"#") {
		return "toolgate"
	}
	return exe
}

// self is this binary's path with symlinks resolved, or "".
func self() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return ""
	}
	return exe
}

// isSDK reports whether dir holds the SDK module.
func isSDK(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	line, _, _ := bufio.NewReader(f).ReadLine()
	return strings.TrimSpace(string(line)) == "module "+sdkModule
}

// writeScaffold renders every template into dir, which must not exist or be
// empty: init never overwrites someone's work.
func writeScaffold(dir string, data scaffoldData) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty; plugin init writes only into a new or empty directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmpls, err := fs.Glob(scaffold, "scaffold/*.tmpl")
	if err != nil {
		return err
	}
	for _, path := range tmpls {
		t, err := template.ParseFS(scaffold, path)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return fmt.Errorf("render %s: %w", path, err)
		}
		out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".tmpl"))
		if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
