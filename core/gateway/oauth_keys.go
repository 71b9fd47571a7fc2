package gateway

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-hclog"
	"golang.org/x/time/rate"
)

const (
	// keysRetryEvery spaces attempts to get keys while none were ever
	// fetched, so a down authorization server is not asked once per request.
	keysRetryEvery = 5 * time.Second
	// keysRefetchEvery limits refetches of the JWKS on a token with an
	// unknown kid: a rotated key is found at once, a stream of forged kids
	// costs one fetch per interval.
	keysRefetchEvery = 30 * time.Second
	// keysRefreshEvery refetches the JWKS in the background, so a key the
	// authorization server withdrew stops being accepted.
	keysRefreshEvery = time.Hour
	// maxFetchBytes bounds a metadata document or key set: anyone can make
	// the gateway refetch the keys, so their size must not be the server's
	// to choose.
	maxFetchBytes = 1 << 20
)

// errFetchTooLarge is a metadata or JWKS body over maxFetchBytes.
var errFetchTooLarge = fmt.Errorf("response body exceeds %d bytes", maxFetchBytes)

// errInsecureFetch is a fetch of keys or metadata that could be tampered
// with on the way: plain http to a host that is not loopback, or a redirect
// from https down to http.
var errInsecureFetch = errors.New("refusing to fetch signing keys over plain http from a host that is not loopback")

// redactedURL is s for a log line or an error: a password in it (a
// jwks_url may carry basic-auth credentials) shows as "xxxxx".
func redactedURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}

// secureFetchURL is the rule the config applies to jwks_url, applied to
// every URL the gateway fetches keys or metadata from, discovered or
// redirected to: https, or http to a loopback host.
func secureFetchURL(u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	if u.Scheme != "http" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkRedirect refuses a redirect to an insecure URL or from https to http.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if !secureFetchURL(req.URL) || (via[0].URL.Scheme == "https" && req.URL.Scheme != "https") {
		return fmt.Errorf("redirect from %s to %s: %w", via[len(via)-1].URL.Redacted(), req.URL.Redacted(), errInsecureFetch)
	}
	return nil
}

// cappedTransport fails any response body longer than maxFetchBytes, for
// the key set library too, which reads what it is given whole.
type cappedTransport struct{ next http.RoundTripper }

func (c cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxFetchBytes}
	return resp, nil
}

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errFetchTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, errFetchTooLarge
	}
	return n, err
}

// keysUnavailableError is a token that cannot be checked because the
// authorization server's keys were never fetched.
type keysUnavailableError struct {
	url        string // the JWKS or metadata URL at fault
	err        error
	retryAfter time.Duration
}

func (e *keysUnavailableError) Error() string {
	return fmt.Sprintf("the authorization server's signing keys could not be fetched from %s: %v", redactedURL(e.url), e.err)
}

func (e *keysUnavailableError) Unwrap() error { return e.err }

// keySource holds the authorization server's keys: it finds the JWKS (from
// the issuer's metadata unless configured), fetches it on first use, and
// leaves refreshing to keyfunc — hourly, and on an unknown kid, rate-limited.
type keySource struct {
	issuer, jwksURL string
	timeout         time.Duration
	log             hclog.Logger
	client          *http.Client
	transport       *http.Transport

	// life ends with the server; it stops keyfunc's refresh goroutine.
	life context.Context
	end  context.CancelFunc

	loaded atomic.Pointer[keySet]
	// refetchLimit spaces the refetches a token asks for, with an unknown
	// kid or a signature the keys held do not verify.
	refetchLimit *rate.Limiter
	// turn is a lock that a waiting request can give up on: one fetch at a
	// time, the rest wait for its outcome or their own deadline.
	turn chan struct{}
	// Guarded by turn.
	lastTry time.Time
	lastErr *keysUnavailableError
}

func newKeySource(issuer, jwksURL string, timeout time.Duration, log hclog.Logger) *keySource {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	life, end := context.WithCancel(context.Background())
	return &keySource{
		issuer: issuer, jwksURL: jwksURL, timeout: timeout, log: log,
		transport: tr,
		client:    &http.Client{Transport: cappedTransport{tr}, Timeout: timeout, CheckRedirect: checkRedirect},
		life:      life, end: end,
		turn:         make(chan struct{}, 1),
		refetchLimit: rate.NewLimiter(rate.Every(keysRefetchEvery), 1),
	}
}

func (k *keySource) close() {
	k.end()
	k.transport.CloseIdleConnections()
}

// get returns the keys, fetching them first if need be.
func (k *keySource) get(ctx context.Context) (keyfunc.Keyfunc, error) {
	if ks := k.loaded.Load(); ks != nil {
		return ks.kf, nil
	}
	select {
	case k.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, &keysUnavailableError{url: k.where(), err: fmt.Errorf("waiting for another fetch: %w", ctx.Err()), retryAfter: time.Second}
	}
	defer func() { <-k.turn }()
	if ks := k.loaded.Load(); ks != nil {
		return ks.kf, nil
	}
	if wait := keysRetryEvery - time.Since(k.lastTry); k.lastErr != nil && wait > 0 {
		k.log.Debug("token not checked: signing keys still unavailable", "url", redactedURL(k.lastErr.url), "retry_in", wait)
		e := *k.lastErr
		e.retryAfter = wait
		return nil, &e
	}
	ks, err := k.fetch(ctx)
	// Retries are spaced from the end of an attempt: a request that waited
	// for a slow failing fetch must not start another one at once.
	k.lastTry = time.Now()
	if err != nil {
		k.lastErr = err
		k.log.Error("cannot check access tokens: signing keys unavailable", "url", redactedURL(err.url), "error", err.err)
		return nil, err
	}
	k.lastErr = nil
	k.loaded.Store(ks)
	return ks.kf, nil
}

// prefetch fetches the keys as the gateway starts serving, so a wrong
// issuer or an unreachable authorization server is in the log at start
// rather than at the first client's request, which then need not wait.
func (k *keySource) prefetch(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	_, _ = k.get(ctx) // get logs a failure
}

func (k *keySource) where() string {
	if k.jwksURL != "" {
		return k.jwksURL
	}
	return k.issuer
}

// fetch finds the JWKS URL and loads the key set once, keeping it only if
// it holds a usable key.
func (k *keySource) fetch(ctx context.Context) (*keySet, *keysUnavailableError) {
	jwksURL := k.jwksURL
	if jwksURL == "" {
		u, err := k.discover(ctx)
		if err != nil {
			return nil, err
		}
		jwksURL = u
	}
	fail := func(err error) *keysUnavailableError {
		return &keysUnavailableError{url: jwksURL, err: err, retryAfter: keysRetryEvery}
	}
	if u, err := url.Parse(jwksURL); err != nil || !secureFetchURL(u) {
		return nil, fail(errInsecureFetch)
	}
	// The refresh goroutine keyfunc starts lives as long as attempt: until
	// Close if the keys are kept, at once if not. Until the first fetch is
	// done, the request waiting for it can end it too.
	attempt, drop := context.WithCancel(k.life)
	requestGone := context.AfterFunc(ctx, drop)
	held := jwkset.NewMemoryStorage()
	kf, err := k.newKeyfunc(attempt, jwksURL, held)
	if !requestGone() || err != nil {
		drop()
		if err == nil {
			err = ctx.Err()
		}
		return nil, fail(err)
	}
	keys, err := kf.Storage().KeyReadAll(ctx)
	if err == nil && len(keys) == 0 {
		err = errors.New("the key set holds no usable key")
	}
	if err != nil {
		drop()
		return nil, fail(err)
	}
	context.AfterFunc(k.life, drop)
	k.log.Info("fetched the authorization server's signing keys", "url", redactedURL(jwksURL), "keys", len(keys))
	return &keySet{kf: kf, held: held, url: jwksURL}, nil
}

// newKeyfunc fetches the key set at jwksURL and keeps it fresh until ctx
// ends: hourly, and on an unknown kid at most every keysRefetchEvery. Only
// keys meant for signatures ("use": "sig", or no use) verify tokens.
func (k *keySource) newKeyfunc(ctx context.Context, jwksURL string, held jwkset.Storage) (keyfunc.Keyfunc, error) {
	store, err := jwkset.NewStorageFromHTTP(jwksURL, jwkset.HTTPClientStorageOptions{
		Storage:         held,
		Client:          k.client,
		Ctx:             ctx,
		HTTPTimeout:     k.timeout,
		RefreshInterval: keysRefreshEvery,
		RefreshErrorHandler: func(_ context.Context, err error) {
			k.log.Error("fetch of the authorization server's signing keys failed; keeping the keys fetched before", "url", redactedURL(jwksURL), "error", err)
		},
	})
	if err != nil {
		return nil, err
	}
	client, err := jwkset.NewHTTPClient(jwkset.HTTPClientOptions{
		HTTPURLs:          map[string]jwkset.Storage{jwksURL: store},
		RateLimitWaitMax:  k.timeout,
		RefreshUnknownKID: k.refetchLimit,
	})
	if err != nil {
		return nil, err
	}
	return keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: client, UseWhitelist: []jwkset.USE{jwkset.UseSig, ""}})
}

// errNoKeyForAlg is a token without a kid meeting a key set with no signing
// key for its algorithm.
var errNoKeyForAlg = errors.New("the token names no kid and the key set holds no signing key")

// signingKeys are the keys a token without a kid may be checked against:
// keyfunc would try every key of the set, those published for encryption
// too, so the use and alg a key is published with are checked here as
// keyfunc checks them for a named key.
func signingKeys(ctx context.Context, kf keyfunc.Keyfunc, alg string) (jwt.VerificationKeySet, error) {
	all, err := kf.Storage().KeyReadAll(ctx)
	if err != nil {
		return jwt.VerificationKeySet{}, err
	}
	var set jwt.VerificationKeySet
	for _, k := range all {
		m := k.Marshal()
		if (m.USE != jwkset.UseSig && m.USE != "") || (m.ALG != "" && m.ALG.String() != alg) {
			continue
		}
		key := k.Key()
		if pk, ok := key.(interface{ Public() crypto.PublicKey }); ok {
			key = pk.Public()
		}
		set.Keys = append(set.Keys, key)
	}
	if len(set.Keys) == 0 {
		return set, fmt.Errorf("%w for %s", errNoKeyForAlg, alg)
	}
	return set, nil
}

// discover reads jwks_uri from the issuer's metadata, trying the places the
// MCP authorization spec lists: OAuth 2.0 authorization server metadata
// (RFC 8414), then OpenID Connect discovery.
func (k *keySource) discover(ctx context.Context) (string, *keysUnavailableError) {
	candidates := metadataURLs(k.issuer)
	var problems problemList
	for _, u := range candidates {
		jwks, err := k.readMetadata(ctx, u)
		if err == nil {
			k.log.Debug("discovered the JWKS URL", "metadata", u, "jwks_uri", jwks)
			return jwks, nil
		}
		problems = append(problems, err)
		// Another path on a host that did not answer would fare no better.
		var netErr net.Error
		if errors.As(err, &netErr) || ctx.Err() != nil {
			break
		}
	}
	return "", &keysUnavailableError{url: candidates[0], err: fmt.Errorf("discover the JWKS URL of issuer %s: %w", k.issuer, problems), retryAfter: keysRetryEvery}
}

// problemList is what each metadata location answered, on one line.
type problemList []error

func (p problemList) Error() string {
	msgs := make([]string, len(p))
	for i, err := range p {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (p problemList) Unwrap() []error { return p }

// metadataURLs are the metadata locations of issuer, in the order of the
// MCP authorization spec: well-known path inserted before the issuer's path,
// and for OpenID Connect also appended to it.
func metadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return []string{issuer}
	}
	base := u.Scheme + "://" + u.Host
	p := strings.TrimSuffix(u.Path, "/")
	urls := []string{
		base + "/.well-known/oauth-authorization-server" + p,
		base + "/.well-known/openid-configuration" + p,
	}
	if p != "" {
		urls = append(urls, base+p+"/.well-known/openid-configuration")
	}
	return urls
}

// readMetadata fetches one metadata document and returns its jwks_uri; the
// document must name the configured issuer (RFC 8414 section 3.3).
func (k *keySource) readMetadata(ctx context.Context, u string) (string, error) {
	if pu, err := url.Parse(u); err != nil || !secureFetchURL(pu) {
		return "", fmt.Errorf("%s: %w", u, errInsecureFetch)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("%s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return "", fmt.Errorf("%s: decode metadata: %w", u, err)
	}
	switch {
	case doc.Issuer != k.issuer:
		return "", fmt.Errorf("%s: metadata names issuer %q, not %q", u, doc.Issuer, k.issuer)
	case checkAbsURL(doc.JWKSURI) != "":
		return "", fmt.Errorf("%s: jwks_uri %q is not an absolute http(s) URL", u, doc.JWKSURI)
	}
	if ju, _ := url.Parse(doc.JWKSURI); !secureFetchURL(ju) {
		return "", fmt.Errorf("%s: jwks_uri %q: %w", u, doc.JWKSURI, errInsecureFetch)
	}
	return doc.JWKSURI, nil
}
