package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	yaml "go.yaml.in/yaml/v3"
)

// maxYAMLValues bounds the values a frontmatter may expand to, aliases
// included, so that a few lines cannot blow up into millions of values.
const maxYAMLValues = 10000

// splitFrontmatter returns the YAML between a SKILL.md's opening "---" line
// and the next "---" line, and the body after it. A byte order mark before
// the opening line is allowed, as are spaces and tabs after the closing one.
func splitFrontmatter(doc []byte) (front, body []byte, ok bool) {
	doc = bytes.TrimPrefix(doc, []byte("\uFEFF"))
	line, rest, found := bytes.Cut(doc, []byte("\n"))
	if !found || string(bytes.TrimSuffix(line, []byte("\r"))) != "---" {
		return nil, nil, false
	}
	start := len(doc) - len(rest)
	for off := start; off < len(doc); {
		line, _, found := bytes.Cut(doc[off:], []byte("\n"))
		next := off + len(line) + 1
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			if !found {
				next = len(doc)
			}
			return doc[start:off], doc[next:], true
		}
		if !found {
			break
		}
		off = next
	}
	return nil, nil, false
}

// parseFrontmatter parses a frontmatter block into the JSON object it
// stands for: mappings become objects (with string keys), sequences arrays,
// and scalars strings, numbers, booleans or null by the YAML 1.2 core schema,
// except that timestamps stay strings, as a JSON rendering keeps them.
func parseFrontmatter(front []byte) (map[string]any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return nil, err
	}
	budget := maxYAMLValues
	v, err := yamlValue(&doc, &budget, 0)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("frontmatter is not a mapping")
	}
	return normalize(m)
}

func yamlValue(n *yaml.Node, budget *int, depth int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, errors.New("frontmatter too large")
	}
	if depth > 100 {
		return nil, errors.New("frontmatter nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], budget, depth+1)
	case yaml.AliasNode:
		return yamlValue(n.Alias, budget, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key that is not a scalar", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %s repeated", k.Line, quote(k.Value))
			}
			v, err := yamlValue(n.Content[i+1], budget, depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlValue(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool", "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return v, nil
		default: // !!str, !!timestamp, !!binary and custom tags: the text
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// normalize turns a decoded value into what decoding its JSON encoding gives,
// so that values from YAML and from JSON compare alike (1 and 1.0 alike).
// A value JSON cannot carry (an infinite float) is an error.
func normalize(m map[string]any) (map[string]any, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	err = json.Unmarshal(data, &out)
	return out, err
}

// compareFrontmatter compares the listed frontmatter with the file's, field
// by field over the fields of both, a missing field counting as null. It
// returns the first differing field in key order, with the two values as
// JSON, or "" when they agree.
func compareFrontmatter(listed, file map[string]any) (field, want, got string) {
	keys := make([]string, 0, len(listed)+len(file))
	for k := range listed {
		keys = append(keys, k)
	}
	for k := range file {
		if _, ok := listed[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !reflect.DeepEqual(listed[k], file[k]) {
			return k, brief(listed[k]), brief(file[k])
		}
	}
	return "", "", ""
}

// brief renders v as JSON cut to a length fit for an error value.
func brief(v any) string {
	data, _ := json.Marshal(v)
	const max = 120
	if len(data) > max {
		return string(data[:max]) + "..."
	}
	return string(data)
}
