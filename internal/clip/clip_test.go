package clip

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"fits", "echo", 4, "echo"},
		{"empty", "", 0, ""},
		{"cut", "abcdef", 3, "abc… (6 bytes in all)"},
		{"cut before a split character", "aé" + "b", 2, "a… (4 bytes in all)"},
		{"four-byte character", "😀😀", 5, "😀… (8 bytes in all)"},
		{"nothing fits", "😀", 2, "… (4 bytes in all)"},
		{"negative bound", "ab", -1, "… (2 bytes in all)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in, tc.n); got != tc.want {
				t.Errorf("Text(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
	long := strings.Repeat("é", 1<<20)
	if got := Name(long); len(got) > NameLimit+len("… (2097152 bytes in all)") || !strings.HasSuffix(got, "… (2097152 bytes in all)") {
		t.Errorf("Name of a %d-byte name: %d bytes, %q…", len(long), len(got), got[:40])
	}
	if got := Name("x_hello_greet"); got != "x_hello_greet" {
		t.Errorf("Name of a real name = %q", got)
	}
}

func TestMessage(t *testing.T) {
	if Message(nil) != nil {
		t.Error("Message(nil) is not nil")
	}
	short := fmt.Errorf("open x: %w", fs.ErrNotExist)
	if Message(short) != short {
		t.Error("a short message was wrapped")
	}
	long := fmt.Errorf("%s: %w", strings.Repeat("m", 5000), fs.ErrNotExist)
	got := Message(long)
	if !errors.Is(got, fs.ErrNotExist) || len(got.Error()) > MessageLimit+len("… (5021 bytes in all)") ||
		!strings.HasSuffix(got.Error(), "… (5021 bytes in all)") {
		t.Errorf("Message of a %d-byte error: %d bytes, matches ErrNotExist: %v", len(long.Error()), len(got.Error()), errors.Is(got, fs.ErrNotExist))
	}
}

// Prefix never cuts inside a character, so what it keeps is still UTF-8.
func TestPrefix(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	for n := 0; n <= len(s)+1; n++ {
		got := Prefix(s, n)
		if !utf8.ValidString(got) || len(got) > n || len(got) < n-1 && n <= len(s) {
			t.Errorf("Prefix(%d) = %q (%d bytes)", n, got, len(got))
		}
	}
}
