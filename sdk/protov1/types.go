package protov1

import "encoding/json"

// ProtocolMinor is the revision of protocol v1 this SDK speaks. Additive changes
// bump it; a plugin built against an older minor simply lacks the newer parts.
//
//   - 1: the config schema in Info.
//   - 2: client callbacks: a call's Peer reaches the plugin over go-plugin's
//     broker, and RootsChanged tells the plugin its clients' roots changed.
//   - 3: Complete, and resource subscriptions (SubscribeResource,
//     UnsubscribeResource).
//   - 4: MCP tasks: CreateTask, GetTask, TaskResult, ListTasks, CancelTask,
//     and task status on Watch.
//   - 5: task input: a task's requests to its client travel as TaskInput
//     events on Watch, and AnswerTaskInput brings the answers back.
const ProtocolMinor = 5

// MinorClientCallbacks is the first minor whose plugins ask a call's client
// through the host; the host offers an older plugin no client, whatever its
// capabilities claim.
const MinorClientCallbacks = 2

// Info names a plugin and says which optional parts of the protocol it serves.
type Info struct {
	Name          string
	Version       string
	ProtocolMinor uint32
	Capabilities  Capabilities
	// ConfigSchema is the JSON Schema of the plugin's config block, so the
	// host can check settings before anything runs; nil when not described
	// (always, before protocol minor 1).
	ConfigSchema json.RawMessage
}

// Capabilities are the optional parts of the protocol a plugin serves.
type Capabilities struct {
	Tools     bool
	Resources bool
	Prompts   bool
	Watch     bool
	Progress  bool
	// ClientCallbacks: the plugin may ask a call's client (CallRequest.Peer)
	// for sampling, elicitation and roots, and wants RootsChanged.
	ClientCallbacks bool
	// Completions: the Backend is a Completer (minor 3).
	Completions bool
	// ResourceSubscribe: the Backend is a ResourceSubscriber (minor 3).
	ResourceSubscribe bool
	// Tasks: the plugin runs tool calls as MCP tasks (TaskRunner).
	Tasks bool
	// TaskInput: the Backend is a TaskInputAnswerer that raises its tasks'
	// requests to their client as EventTaskInput (minor 5).
	TaskInput bool
}

// Tool is a tool definition as MCP describes it, plus toolgate labels.
type Tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage // a JSON Schema object; nil means {"type":"object"}
	OutputSchema json.RawMessage
	Annotations  Annotations
	Labels       map[string]string
	Meta         json.RawMessage
}

// Annotations are MCP's tool hints. A nil pointer means the hint was not given.
type Annotations struct {
	Title       string
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
	OpenWorld   *bool
}

// IsReadOnly reports whether the tool is marked read-only.
func (a Annotations) IsReadOnly() bool { return a.ReadOnly != nil && *a.ReadOnly }

// IsIdempotent reports whether the tool is marked idempotent.
func (a Annotations) IsIdempotent() bool { return a.Idempotent != nil && *a.Idempotent }

// IsDestructive reports whether the tool may destroy data. MCP's default for a
// tool that is not read-only is destructive, so an unset hint counts as true.
func (a Annotations) IsDestructive() bool {
	if a.IsReadOnly() {
		return false
	}
	return a.Destructive == nil || *a.Destructive
}

// ContentKind is the kind of one content block of a tool result or prompt message.
type ContentKind int

const (
	KindText ContentKind = iota
	KindImage
	KindAudio
	KindResource     // an embedded resource (text or blob)
	KindResourceLink // a link to a resource the client may read
)

func (k ContentKind) String() string {
	switch k {
	case KindText:
		return "text"
	case KindImage:
		return "image"
	case KindAudio:
		return "audio"
	case KindResource:
		return "resource"
	case KindResourceLink:
		return "resource_link"
	}
	return "unknown"
}

// Content is one content block. Which fields are set depends on Kind:
// Text for KindText; Data and MIMEType for KindImage and KindAudio (raw bytes,
// never base64); Resource for KindResource; Link for KindResourceLink.
type Content struct {
	Kind        ContentKind
	Text        string
	Data        []byte
	MIMEType    string
	Resource    *ResourceContents
	Link        *Resource
	Annotations json.RawMessage // MCP annotations: audience, priority, lastModified
	Meta        json.RawMessage
}

// Result is a tool's answer, kept whole on its way to the client.
type Result struct {
	Content           []Content
	StructuredContent json.RawMessage
	IsError           bool
	Meta              json.RawMessage
}

// CallRequest asks a plugin to run one tool.
type CallRequest struct {
	Name         string
	Arguments    json.RawMessage
	Meta         json.RawMessage
	WantProgress bool
	// Peer is the client the call came from, for the plugin to ask things
	// while the call runs (see AskPeer); nil when no client can be asked.
	// The host sets it from the call's context (PeerFrom) and carries it to
	// the plugin over go-plugin's broker for this call only; in-process it is
	// passed as is.
	Peer Peer
	// TaskClient is what the client of a CreateTask answers, for a backend
	// that raises its tasks' requests (TaskInputAnswerer); nil when it can
	// be asked nothing.
	TaskClient *PeerCapabilities
}

// Progress is one progress report of a running call.
type Progress struct {
	Progress float64
	Total    float64 // 0 = unknown
	Message  string
}

// LogMessage is a log line a plugin sends toward the client (MCP logging).
type LogMessage struct {
	Level  string // debug, info, notice, warning, error, critical, alert, emergency
	Logger string
	Data   json.RawMessage
}

// CallEvents receives what a running call reports before its result.
type CallEvents interface {
	Progress(Progress)
	Log(LogMessage)
}

// Resource describes a resource a plugin serves, or a resource link.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        int64 // -1 = unknown
	Annotations json.RawMessage
	Meta        json.RawMessage
}

// ResourceTemplate describes a family of resources by RFC 6570 URI template.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Annotations json.RawMessage
	Meta        json.RawMessage
}

// ResourceContents is the body of a resource: Text, or Blob when Blob is non-nil.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     json.RawMessage
}

// IsBlob reports whether the contents are binary.
func (c ResourceContents) IsBlob() bool { return c.Blob != nil }

// Prompt describes a prompt template.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Meta        json.RawMessage
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string
	Title       string
	Description string
	Required    bool
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    string // "user" or "assistant"
	Content Content
}

// PromptResult is a rendered prompt.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// EventKind says what a watch event is about.
type EventKind int

const (
	EventToolsChanged EventKind = iota
	EventResourcesChanged
	EventPromptsChanged
	EventResourceUpdated
	EventLog
	// EventTaskStatus: a task the plugin runs changed state (minor 4).
	EventTaskStatus
	// EventTaskInput: a task the plugin runs asks its client something, or
	// withdrew what it asked (minor 5).
	EventTaskInput
)

// Event is a change notice or log line a plugin sends on Watch.
type Event struct {
	Kind EventKind
	URI  string      // EventResourceUpdated
	Log  *LogMessage // EventLog
	Task *Task       // EventTaskStatus
	// TaskInput is the request of EventTaskInput.
	TaskInput *TaskInput
}
