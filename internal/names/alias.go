package names

import (
	"strings"

	"github.com/mcpbridge/mcpbridge/tool"
)

// aliasPrefix starts an alias, as tool.Origin.Alias writes it
// (TestAlias holds the two to the same prefix).
const aliasPrefix = "mcp__"

// Readings returns every origin an alias can be read to name, the
// shortest server part first, or nil when name is no alias. Any "__" after
// the prefix may end the server part, so an alias whose server or tool name
// holds "__" has several readings; [Resolve] says which one counts.
func Readings(name string) []tool.Origin {
	rest, ok := strings.CutPrefix(name, aliasPrefix)
	if !ok {
		return nil
	}
	var out []tool.Origin
	for i := 1; i+2 < len(rest); i++ {
		if rest[i] == '_' && rest[i+1] == '_' {
			out = append(out, tool.Origin{Server: rest[:i], Tool: rest[i+2:]})
		}
	}
	return out
}

// Resolve reads the alias name as the one origin known accepts. It is
// the one rule every holder of tools applies: an alias names a tool only when
// exactly one of its readings names a tool the holder has; none is "not
// mine", and more than one is ambiguous, so nothing runs on a guess. ok is
// false in both cases, and ambiguous tells them apart.
func Resolve(name string, known func(tool.Origin) bool) (o tool.Origin, ok, ambiguous bool) {
	n := 0
	for _, r := range Readings(name) {
		if known(r) {
			o, n = r, n+1
		}
	}
	switch n {
	case 0:
		return tool.Origin{}, false, false
	case 1:
		return o, true, false
	}
	return tool.Origin{}, false, true
}
