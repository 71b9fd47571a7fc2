package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/sdk/schema"
)

// ArgumentError says which arguments of a call break the tool's input schema.
type ArgumentError = schema.ArgumentError

// ValidateArguments checks args against the tool's input schema with the
// validator plugintest uses too. A schema the plugin got wrong, or one that
// refers to documents outside itself, is reported, not silently skipped.
func (t *Tool) ValidateArguments(args json.RawMessage) error {
	t.schemaOnce.Do(func() { t.schema, t.schemaErr = schema.Compile(t.Def.InputSchema) })
	if t.schemaErr != nil {
		return fmt.Errorf("tool %s has an input schema that does not compile: %w", t.ID, t.schemaErr)
	}
	return t.schema.ValidateArguments(t.ID, args)
}
