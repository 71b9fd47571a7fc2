package plugin

import (
	"context"
	"sync"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// ResourceUpdated tells the gateway that the resource at uri changed; the
// gateway sends notifications/resources/updated to the clients subscribed to
// it. Call it from anywhere, at any time: it never blocks, and does nothing
// while no gateway listens.
func (p *Plugin) ResourceUpdated(uri string) {
	p.updates.send(protov1.Event{Kind: protov1.EventResourceUpdated, URI: uri})
}

// updateBuffer is how many updates wait for a slow host before new ones are
// dropped; a dropped update is only a missed refresh, never a wrong answer.
const updateBuffer = 64

// updateHub hands events to every Watch stream the host has open.
type updateHub struct {
	mu   sync.Mutex
	subs map[chan protov1.Event]struct{}
}

func (h *updateHub) add() chan protov1.Event {
	ch := make(chan protov1.Event, updateBuffer)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[chan protov1.Event]struct{}{}
	}
	h.subs[ch] = struct{}{}
	return ch
}

func (h *updateHub) remove(ch chan protov1.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, ch)
}

func (h *updateHub) send(e protov1.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- e:
		default:
		}
	}
}

// Watch sends the plugin's resource updates until the host stops listening.
func (b *backend) Watch(ctx context.Context, emit func(protov1.Event)) error {
	ch := b.p.updates.add()
	defer b.p.updates.remove(ch)
	for {
		select {
		case <-ctx.Done():
			return nil
		case e := <-ch:
			emit(e)
		}
	}
}

// Complete asks the plugin's Complete function; a plugin without one has no
// suggestions.
func (b *backend) Complete(ctx context.Context, req *protov1.CompleteRequest) (*protov1.Completion, error) {
	if b.p.Complete == nil {
		return &protov1.Completion{}, nil
	}
	if req.PromptName != "" {
		if _, ok := b.prompts[req.PromptName]; !ok {
			return nil, protov1.NotFoundf("prompt %q", req.PromptName)
		}
	}
	if req.ResourceTemplate != "" && !b.hasTemplate(req.ResourceTemplate) {
		return nil, protov1.NotFoundf("resource template %q", req.ResourceTemplate)
	}
	return b.p.Complete(ctx, req)
}

func (b *backend) hasTemplate(uriTemplate string) bool {
	for _, t := range b.p.ResourceTemplates {
		if t.Def.URITemplate == uriTemplate {
			return true
		}
	}
	return false
}
