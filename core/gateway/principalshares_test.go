package gateway

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// maxTasksPerPrincipal is one principal's share of the tasks when several
// can connect.
const maxTasksPerPrincipal = maxIndexedTasks / 10

// TestShareOf: one principal may hold all of a whole when it is every
// client, else a tenth of it, and never nothing.
func TestShareOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  Options
		whole int
		want  int
	}{
		{"no authentication", Options{}, 1000, 1000},
		{"one token", Options{Tokens: []string{"t"}}, 1000, 1000},
		{"two tokens", Options{Tokens: []string{"t", "u"}}, 1000, 100},
		{"OAuth", Options{OAuth: &OAuth{}}, 1000, 100},
		{"OAuth, a small whole", Options{OAuth: &OAuth{}}, 5, 1},
		{"one token, a small whole", Options{Tokens: []string{"t"}}, 5, 5},
	} {
		s := &Server{opts: tc.opts}
		if got := s.shareOf(tc.whole); got != tc.want {
			t.Errorf("%s: share of %d = %d, want %d", tc.name, tc.whole, got, tc.want)
		}
	}
}

// TestPrincipalShares: each principal is capped alone, places being made
// count, and a place given back is free again.
func TestPrincipalShares(t *testing.T) {
	alice, bob := Principal{Subject: "alice"}, Principal{Subject: "bob"}
	p := newPrincipalShares(2)
	p.take(alice)
	if p.full(alice, 0) || !p.full(alice, 1) {
		t.Fatal("alice, holding 1 of 2, is full, or is not with one more being made")
	}
	p.take(alice)
	if !p.full(alice, 0) || p.full(bob, 0) {
		t.Fatal("alice holding 2 of 2 is not full, or bob is")
	}
	p.give(alice)
	if p.full(alice, 0) || p.of(alice) != 1 {
		t.Fatalf("alice gave one back and holds %d", p.of(alice))
	}
	p.give(alice)
	if len(p.held) != 0 {
		t.Fatalf("principals holding nothing are still counted: %v", p.held)
	}
}

// TestSpentStatesShare: the confirmations one principal may have used
// follow the same rule as its sessions and tasks: all the gateway
// remembers when it is every client, a tenth when several can connect.
func TestSpentStatesShare(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mod   func(*Options)
		share int
	}{
		{"no authentication", nil, maxSpentStates},
		{"one token", func(o *Options) { o.Tokens = []string{"t"} }, maxSpentStates},
		{"two tokens", func(o *Options) { o.Tokens = []string{"t", "u"} }, maxSpentStates / 10},
	} {
		f := newFixture(t, tc.mod)
		who := Principal{Issuer: "token", Subject: "0"}
		now := time.Now()
		var err error
		spent := 0
		for ; spent <= maxSpentStates/10 && err == nil; spent++ {
			var id stateID
			copy(id[:], fmt.Sprint(spent))
			err = f.srv.spent.spend(id, now.Add(time.Minute).Unix(), who, now)
		}
		var full *spentFullError
		switch {
		case tc.share == maxSpentStates && err != nil:
			t.Errorf("%s: confirmation %d refused: %v; want all %d of the gateway's", tc.name, spent, err, maxSpentStates)
		case tc.share < maxSpentStates && (!errors.As(err, &full) || !full.Principal || full.Held != tc.share):
			t.Errorf("%s: past %d confirmations: %v; want the principal's share of %d full", tc.name, spent-1, err, tc.share)
		}
	}
}
