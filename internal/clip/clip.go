// Package clip bounds what an error or a log line repeats of text that came
// from outside: a name a client sent, a value from a token, a plugin's
// message. A request of megabytes must not come back several times over,
// and what is shown still says how long the text was.
package clip

import (
	"strconv"
	"unicode/utf8"
)

// NameLimit bounds a name (of a tool, prompt, plugin, task, or a resource's
// URI) an error quotes back. Real names are far shorter, and a name longer
// than this is no typo of one.
const NameLimit = 200

// MessageLimit bounds the message of a plugin (or of the server behind it)
// an error passes on: enough for any useful explanation.
const MessageLimit = 1000

// Name is a name from a request as an error or a log line shows it:
// Text(name, NameLimit).
func Name(name string) string { return Text(name, NameLimit) }

// Message is err with its text cut to MessageLimit bytes as Text cuts it;
// it still matches what err matches (errors.Is, errors.As).
func Message(err error) error {
	if err == nil || len(err.Error()) <= MessageLimit {
		return err
	}
	return &clipped{err: err, text: Text(err.Error(), MessageLimit)}
}

type clipped struct {
	err  error
	text string
}

func (c *clipped) Error() string { return c.text }
func (c *clipped) Unwrap() error { return c.err }

// Text is s cut to at most n bytes on a character boundary, marked with how
// long s was: "abc… (5000 bytes in all)". s is returned as it is when it
// fits.
func Text(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "… (" + strconv.Itoa(len(s)) + " bytes in all)"
}

// Prefix is s cut to at most n bytes on a character boundary: a cut inside
// a character would leave text that is not UTF-8, which protobuf refuses to
// carry.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n, 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
