package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/toolgate/toolgate/internal/testparts"
)

// `toolgate call` of a tool that may delete or overwrite data, here the
// real filesystem server's write_file: declined without a terminal, run
// with --yes, refused under destructive = "deny"; a tool that says it is
// not destructive (create_directory) runs without asking.
func TestCallConfirmsDestructiveTools(t *testing.T) {
	fs := filepath.Join(testparts.NodeModules(t), "node_modules", ".bin", "mcp-server-filesystem")
	dir := t.TempDir()
	block := func(name, policy string) string {
		return fmt.Sprintf("plugin %q {\n  type = \"mcp-stdio\"\n%s  config {\n    command = %s\n    args = [%s]\n  }\n}\n",
			name, policy, strconv.Quote(fs), strconv.Quote(dir))
	}
	cfg := filepath.Join(t.TempDir(), "toolgate.hcl")
	src := "gateway {\n  state_dir = " + strconv.Quote(t.TempDir()) + "\n}\n" +
		block("fs", "") + block("fsdeny", "  destructive = \"deny\"\n")
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "note.txt")
	write := func(plugin string, more ...string) result {
		return tg(t, nil, append([]string{"call", "--config", cfg, "x_" + plugin + "_write_file", "--arg", "path=" + file, "--arg", "content=hi"}, more...)...)
	}

	r := write("fs")
	wantExit(t, r, 1, nil, []string{"declined, since stdin is not a terminal to ask on; pass --yes to confirm: Allow x_fs_write_file to run?",
		`Arguments: {"content":"hi","path":"` + file + `"}`, "x_fs_write_file was not run: the user declined it"})
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("declined write_file wrote the file (%v)", err)
	}

	r = write("fs", "--yes")
	wantExit(t, r, 0, []string{"Successfully wrote to " + file}, []string{"confirmed (--yes): Allow x_fs_write_file to run?"})
	if b, err := os.ReadFile(file); err != nil || string(b) != "hi" {
		t.Errorf("confirmed write_file: %q, %v", b, err)
	}

	r = write("fsdeny", "--yes")
	wantExit(t, r, 1, nil, []string{`x_fsdeny_write_file was not run: it may delete or overwrite data (its annotations say destructiveHint: true), and plugin "fsdeny" refuses such tools (destructive = "deny", ` + cfg + `:`})

	sub := filepath.Join(dir, "sub")
	r = tg(t, nil, "call", "--config", cfg, "x_fs_create_directory", "--arg", "path="+sub)
	wantExit(t, r, 0, []string{"Successfully created directory"}, nil)
	if st, err := os.Stat(sub); err != nil || !st.IsDir() {
		t.Errorf("create_directory, which says it is not destructive, did not run: %v", err)
	}
}
