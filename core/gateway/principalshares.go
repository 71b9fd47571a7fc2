package gateway

// A gateway bounds some things as a whole — the HTTP sessions it holds,
// the tasks it keeps track of, the confirmations it remembers as used — and
// counts each principal's part of them against a share of that whole, so
// that one token or OAuth subject cannot take every place and lock the
// others out. The share follows one rule for all of them.

// principalShare is the part of a whole one principal may hold by default
// when several principals can connect.
const principalShare = 10

// shareOf is one principal's share of whole: all of it when every client
// is the same principal (no authentication, or a single static token: a
// lower cap would only lower the total), else a tenth of it, at least one.
func (s *Server) shareOf(whole int) int {
	if s.onePrincipal() {
		return whole
	}
	return max(1, whole/principalShare)
}

// onePrincipal reports whether every HTTP client is the same principal:
// there is no OAuth and at most one static token.
func (s *Server) onePrincipal() bool { return s.opts.OAuth == nil && len(s.opts.Tokens) <= 1 }

// principalShares counts what each principal holds of one whole, and
// caps each at limit. Its owner's mutex guards it.
type principalShares struct {
	limit int
	held  map[Principal]int
}

func newPrincipalShares(limit int) principalShares {
	return principalShares{limit: limit, held: map[Principal]int{}}
}

// full reports whether who, holding also more places not yet counted here
// (being made), has no room for another.
func (p *principalShares) full(who Principal, more int) bool {
	return p.held[who]+more >= p.limit
}

// of is how many places who holds.
func (p *principalShares) of(who Principal) int { return p.held[who] }

// take counts one more place of who's.
func (p *principalShares) take(who Principal) { p.held[who]++ }

// give gives back one place of who's.
func (p *principalShares) give(who Principal) {
	if p.held[who]--; p.held[who] <= 0 {
		delete(p.held, who)
	}
}
