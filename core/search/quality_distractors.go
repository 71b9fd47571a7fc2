package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// distractorSeed fixes the distractor catalog: the same tools on every run.
const distractorSeed = 0x7001_6a7e

// A distractorDomain is the business a made-up product serves: the things
// its tools handle and words its descriptions use. The vocabulary is that of
// SaaS and internal-platform APIs (CRM, billing, HR, commerce, IoT,
// learning, media...), written without looking at the labelled queries.
type distractorDomain struct {
	name  string
	nouns []string
	words []string
}

var (
	distractorDomains = []distractorDomain{
		{"crm", []string{"contact", "lead", "deal", "account", "opportunity", "pipeline", "note", "activity"}, []string{"sales", "customer", "stage", "owner"}},
		{"billing", []string{"invoice", "payment", "subscription", "plan", "coupon", "refund", "customer", "credit_note"}, []string{"amount", "currency", "due", "tax"}},
		{"helpdesk", []string{"ticket", "agent", "macro", "queue", "sla", "article", "comment", "tag"}, []string{"support", "priority", "requester", "status"}},
		{"hr", []string{"employee", "candidate", "job_posting", "interview", "payroll_run", "leave_request", "department", "review_cycle"}, []string{"staff", "manager", "hiring", "salary"}},
		{"commerce", []string{"product", "order", "cart", "sku", "shipment", "return", "discount", "collection"}, []string{"store", "inventory", "checkout", "price"}},
		{"inventory", []string{"warehouse", "stock_item", "purchase_order", "supplier", "bin_location", "transfer", "batch", "count_sheet"}, []string{"quantity", "reorder", "logistics", "site"}},
		{"marketing", []string{"campaign", "audience", "segment", "email_template", "subscriber", "landing_page", "form_submission", "list"}, []string{"newsletter", "open rate", "click", "promotion"}},
		{"iot", []string{"device", "sensor", "gateway", "firmware", "telemetry_reading", "fleet", "rule", "shadow"}, []string{"temperature", "battery", "signal", "region"}},
		{"lms", []string{"course", "lesson", "enrollment", "quiz", "grade", "learner", "cohort", "certificate"}, []string{"student", "instructor", "module", "progress"}},
		{"media", []string{"video", "playlist", "track", "album", "channel", "asset", "caption", "thumbnail"}, []string{"stream", "upload", "duration", "publish"}},
		{"calendar", []string{"event", "calendar", "attendee", "room", "availability", "reminder", "booking", "slot"}, []string{"meeting", "invite", "timezone", "schedule"}},
		{"finance", []string{"ledger_entry", "journal", "budget", "expense", "vendor", "bank_account", "transaction", "forecast"}, []string{"fiscal", "balance", "reconcile", "quarter"}},
		{"cms", []string{"page", "post", "author", "category", "menu", "media_item", "revision", "redirect"}, []string{"content", "draft", "publish", "site"}},
		{"survey", []string{"survey", "question", "response", "respondent", "panel", "poll", "answer_choice", "report"}, []string{"feedback", "score", "anonymous", "results"}},
		{"travel", []string{"trip", "flight", "hotel_booking", "itinerary", "traveler", "fare", "seat", "loyalty_account"}, []string{"airline", "departure", "reservation", "passenger"}},
		{"legal", []string{"contract", "clause", "signature_request", "matter", "template", "counterparty", "approval", "obligation"}, []string{"agreement", "renewal", "compliance", "party"}},
		{"fleet", []string{"vehicle", "driver", "route_plan", "fuel_log", "inspection", "trip_log", "maintenance_job", "depot"}, []string{"mileage", "dispatch", "odometer", "delivery"}},
		{"health", []string{"patient", "appointment", "prescription", "encounter", "practitioner", "lab_result", "claim", "referral"}, []string{"clinic", "visit", "insurance", "care"}},
		{"realestate", []string{"listing", "property", "tenant", "lease", "showing", "offer", "unit", "work_order"}, []string{"rent", "landlord", "square feet", "viewing"}},
		{"events", []string{"ticket_type", "venue", "attendee", "session", "speaker", "sponsor", "badge", "registration"}, []string{"conference", "agenda", "check-in", "capacity"}},
	}
	distractorBrands = []string{"acme", "nimbus", "zephyr", "orbit", "quill", "harbor", "lumen", "vertex", "pike",
		"tandem", "cobalt", "juniper", "mosaic", "sable", "tessera", "umbra", "willow", "yarrow", "atlas", "beacon"}
	distractorVerbs = []struct{ verb, does string }{
		{"list", "Lists"}, {"get", "Gets"}, {"create", "Creates"}, {"update", "Updates"}, {"delete", "Deletes"},
		{"search", "Searches"}, {"archive", "Archives"}, {"export", "Exports"}, {"import", "Imports"},
		{"sync", "Synchronises"}, {"assign", "Assigns"}, {"approve", "Approves"}, {"cancel", "Cancels"},
		{"duplicate", "Duplicates"}, {"merge", "Merges"}, {"restore", "Restores"}, {"count", "Counts"},
		{"send", "Sends"}, {"schedule", "Schedules"}, {"publish", "Publishes"},
	}
	distractorQualifiers = []string{"", "", "", "by_id", "batch", "history", "summary", "for_owner", "v2", "bulk"}
	distractorPhrases    = []string{"", "Results are paginated.", "Requires an admin API key.",
		"Supports filtering by date.", "Returns at most 100 items per call.", "Fields not given are left unchanged.",
		"The operation cannot be undone.", "Use the cursor from the previous call to continue."}
	distractorParams = []Param{
		{"limit", "Maximum number of items to return"}, {"cursor", "Pagination cursor from a previous response"},
		{"filter", "Filter expression"}, {"since", "Only items changed after this time"},
		{"workspace_id", "Workspace to operate in"}, {"fields", "Fields to include in the response"},
		{"sort", "Sort order"}, {"dry_run", "Validate without applying"},
	}
)

// Distractors returns n made-up tools in the style of real catalogs, the
// same n on every call: domain products such as "acme-billing" offer verbs
// over their nouns, named in snake_case, kebab-case or camelCase with
// descriptions and parameters like those of real APIs. None is a labelled
// tool, and every plugin name starts with "dx-", which no catalog uses.
func Distractors(n int) []Doc {
	rng := rand.New(rand.NewPCG(distractorSeed, distractorSeed>>1))
	docs := make([]Doc, 0, n)
	seen := map[string]bool{}
	for len(docs) < n {
		dom := distractorDomains[rng.IntN(len(distractorDomains))]
		brand := distractorBrands[rng.IntN(len(distractorBrands))]
		plugin := "dx-" + brand + "-" + dom.name
		verb := distractorVerbs[rng.IntN(len(distractorVerbs))]
		noun := dom.nouns[rng.IntN(len(dom.nouns))]
		qual := distractorQualifiers[rng.IntN(len(distractorQualifiers))]
		parts := []string{verb.verb, noun}
		if qual != "" {
			parts = append(parts, qual)
		}
		name := joinIdentifier(strings.Split(strings.Join(parts, "_"), "_"), rng.IntN(3))
		id := "x_" + plugin + "_" + name
		if seen[id] {
			continue
		}
		seen[id] = true
		thing := strings.ReplaceAll(noun, "_", " ")
		desc := fmt.Sprintf("%s %s in %s %s. %s", verb.does, plural(thing, verb.verb), titleCase(brand),
			dom.words[rng.IntN(len(dom.words))], distractorPhrases[rng.IntN(len(distractorPhrases))])
		params := []Param{{noun + "_id", "ID of the " + thing}}
		for i, k := 0, rng.IntN(3); i < k; i++ {
			params = append(params, distractorParams[rng.IntN(len(distractorParams))])
		}
		docs = append(docs, Doc{ID: id, Plugin: plugin, Name: name, Description: strings.TrimSpace(desc), Params: params})
	}
	return docs
}

// joinIdentifier spells words the way one of the naming styles found in real
// catalogs does: 0 snake_case, 1 kebab-case, 2 camelCase.
func joinIdentifier(words []string, style int) string {
	switch style {
	case 1:
		return strings.Join(words, "-")
	case 2:
		for i := 1; i < len(words); i++ {
			words[i] = titleCase(words[i])
		}
		return strings.Join(words, "")
	}
	return strings.Join(words, "_")
}

// plural names the noun in the number the verb takes.
func plural(noun, verb string) string {
	switch verb {
	case "list", "search", "export", "import", "sync", "count":
		if strings.HasSuffix(noun, "s") || strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ey") {
			if strings.HasSuffix(noun, "y") {
				return noun[:len(noun)-1] + "ies"
			}
			return noun + "es"
		}
		return noun + "s"
	}
	return "a " + noun
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
