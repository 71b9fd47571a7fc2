package gateway

import (
	"context"
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

	"github.com/MicahParks/keyfunc/v3"
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
	// maxMetadataBytes bounds an authorization server metadata document.
	maxMetadataBytes = 1 << 20
)

// keysUnavailableError is a token that cannot be checked because the
// authorization server's keys were never fetched.
type keysUnavailableError struct {
	url        string // the JWKS or metadata URL at fault
	err        error
	retryAfter time.Duration
}

func (e *keysUnavailableError) Error() string {
	return fmt.Sprintf("the authorization server's signing keys could not be fetched from %s: %v", e.url, e.err)
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

	loaded atomic.Pointer[keyfunc.Keyfunc]
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
		client:    &http.Client{Transport: tr, Timeout: timeout},
		life:      life, end: end,
		turn: make(chan struct{}, 1),
	}
}

func (k *keySource) close() {
	k.end()
	k.transport.CloseIdleConnections()
}

// get returns the keys, fetching them first if need be.
func (k *keySource) get(ctx context.Context) (keyfunc.Keyfunc, error) {
	if kf := k.loaded.Load(); kf != nil {
		return *kf, nil
	}
	select {
	case k.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, &keysUnavailableError{url: k.where(), err: fmt.Errorf("waiting for another fetch: %w", ctx.Err()), retryAfter: time.Second}
	}
	defer func() { <-k.turn }()
	if kf := k.loaded.Load(); kf != nil {
		return *kf, nil
	}
	if wait := keysRetryEvery - time.Since(k.lastTry); k.lastErr != nil && wait > 0 {
		k.log.Debug("token not checked: signing keys still unavailable", "url", k.lastErr.url, "retry_in", wait)
		e := *k.lastErr
		e.retryAfter = wait
		return nil, &e
	}
	k.lastTry = time.Now()
	kf, err := k.fetch(ctx)
	if err != nil {
		k.lastErr = err
		k.log.Error("cannot check access tokens: signing keys unavailable", "url", err.url, "error", err.err)
		return nil, err
	}
	k.lastErr = nil
	k.loaded.Store(&kf)
	return kf, nil
}

func (k *keySource) where() string {
	if k.jwksURL != "" {
		return k.jwksURL
	}
	return k.issuer
}

// fetch finds the JWKS URL and loads the key set once, keeping it only if
// it holds a usable key.
func (k *keySource) fetch(ctx context.Context) (keyfunc.Keyfunc, *keysUnavailableError) {
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
	// The refresh goroutine keyfunc starts lives as long as attempt: until
	// Close if the keys are kept, at once if not.
	attempt, drop := context.WithCancel(k.life)
	noFirstFail := false
	kf, err := keyfunc.NewDefaultOverrideCtx(attempt, []string{jwksURL}, keyfunc.Override{
		Client:                    k.client,
		HTTPTimeout:               k.timeout,
		NoErrorReturnFirstHTTPReq: &noFirstFail,
		RateLimitWaitMax:          k.timeout,
		RefreshInterval:           keysRefreshEvery,
		RefreshUnknownKID:         rate.NewLimiter(rate.Every(keysRefetchEvery), 1),
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(_ context.Context, err error) {
				k.log.Error("fetch of the authorization server's signing keys failed; keeping the keys fetched before", "url", u, "error", err)
			}
		},
	})
	if err != nil {
		drop()
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
	k.log.Info("fetched the authorization server's signing keys", "url", jwksURL, "keys", len(keys))
	return kf, nil
}

// discover reads jwks_uri from the issuer's metadata, trying the places the
// MCP authorization spec lists: OAuth 2.0 authorization server metadata
// (RFC 8414), then OpenID Connect discovery.
func (k *keySource) discover(ctx context.Context) (string, *keysUnavailableError) {
	candidates := metadataURLs(k.issuer)
	var problems []string
	for _, u := range candidates {
		jwks, err := k.readMetadata(ctx, u)
		if err == nil {
			k.log.Debug("discovered the JWKS URL", "metadata", u, "jwks_uri", jwks)
			return jwks, nil
		}
		problems = append(problems, err.Error())
		// Another path on a host that did not answer would fare no better.
		var netErr net.Error
		if errors.As(err, &netErr) || ctx.Err() != nil {
			break
		}
	}
	return "", &keysUnavailableError{url: candidates[0], err: fmt.Errorf("discover the JWKS URL of issuer %s: %s", k.issuer, strings.Join(problems, "; ")), retryAfter: keysRetryEvery}
}

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
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadataBytes)).Decode(&doc); err != nil {
		return "", fmt.Errorf("%s: decode metadata: %w", u, err)
	}
	switch {
	case doc.Issuer != k.issuer:
		return "", fmt.Errorf("%s: metadata names issuer %q, not %q", u, doc.Issuer, k.issuer)
	case checkAbsURL(doc.JWKSURI) != "":
		return "", fmt.Errorf("%s: jwks_uri %q is not an absolute http(s) URL", u, doc.JWKSURI)
	}
	return doc.JWKSURI, nil
}
