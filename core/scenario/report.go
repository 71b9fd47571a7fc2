package scenario

import (
	"encoding/xml"
	"fmt"
	"io"
	"time"
)

// Report is the outcome of a Run: one suite per scenario file, one case per
// step. Skipped steps (after a failure) count neither as passed nor failed.
type Report struct {
	Suites         []*Suite
	Passed, Failed int
}

// Suite is one scenario file's outcome.
type Suite struct {
	Name, File string
	Cases      []Case
	Time       time.Duration
}

// Case is one step's outcome (or the loading or connecting that failed
// before any step ran).
type Case struct {
	Name    string
	Line    int
	Time    time.Duration
	Failure string // why it failed; "" when it passed or was skipped
	Skipped string
}

func (s *Suite) fail(name, why string, start time.Time) {
	s.Time = time.Since(start)
	s.Cases = append(s.Cases, Case{Name: name, Time: s.Time, Failure: why})
}

func (r *Report) add(s *Suite) {
	r.Suites = append(r.Suites, s)
	for _, c := range s.Cases {
		switch {
		case c.Failure != "":
			r.Failed++
		case c.Skipped == "":
			r.Passed++
		}
	}
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	File     string      `xml:"file,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure"`
	Skipped   *junitMessage `xml:"skipped"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML, which CI systems display.
func (r *Report) WriteJUnit(w io.Writer) error {
	out := junitSuites{Failures: r.Failed}
	for _, s := range r.Suites {
		js := junitSuite{Name: s.Name, File: s.File, Time: seconds(s.Time)}
		for _, c := range s.Cases {
			jc := junitCase{Name: c.Name, Classname: s.Name, File: s.File, Line: c.Line, Time: seconds(c.Time)}
			switch {
			case c.Failure != "":
				jc.Failure = &junitMessage{Message: c.Failure, Text: c.Failure}
				js.Failures++
			case c.Skipped != "":
				jc.Skipped = &junitMessage{Message: c.Skipped}
				js.Skipped++
			}
			js.Tests++
			js.Cases = append(js.Cases, jc)
		}
		// tests counts skipped cases too, in the suites and in their sum.
		out.Tests += js.Tests
		out.Suites = append(out.Suites, js)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write JUnit report: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
