package main

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A set is one public retrieval set: a catalog and queries, each with the
// one tool that answers it.
type set struct {
	name    string
	heldOut bool // reported, never tuned to
	tools   []tool.Definition
	queries []query
}

type query struct {
	text string
	want string // the right tool's name
}

// The sets, in the order they are printed; each loads from its own
// directory under the data directory (README.md says what goes there).
var loaders = []struct {
	dir  string
	load func(dir string) (*set, error)
}{
	{"bfcl", loadBFCL},
	{"seal-tools", loadSealTools},
	{"metatool", loadMetaTool},
}

// open opens name, or name.gz uncompressed.
func open(name string) (io.ReadCloser, error) {
	f, err := os.Open(name)
	if err == nil {
		return f, nil
	}
	gz, gzErr := os.Open(name + ".gz")
	if gzErr != nil {
		return nil, err
	}
	r, err := gzip.NewReader(gz)
	if err != nil {
		gz.Close()
		return nil, fmt.Errorf("%s.gz: %w", name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{r, gz}, nil
}

// eachLine calls fn with each line of the file, a JSON value.
func eachLine(name string, fn func(line []byte) error) error {
	f, err := open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	return sc.Err()
}

// schemaOf makes an input schema of a set's parameters, a map of name to
// {type, description}.
func schemaOf(props json.RawMessage) json.RawMessage {
	if len(props) == 0 {
		props = json.RawMessage("{}")
	}
	return json.RawMessage(`{"type":"object","properties":` + string(props) + `}`)
}

// loadBFCL reads the Berkeley Function Calling Leaderboard's single-call
// categories (simple, multiple, live simple, live multiple): every
// function they define is one tool of one catalog (the first definition of
// a name), and every question whose answer is one call is a query for
// the function it calls.
func loadBFCL(dir string) (*set, error) {
	s := &set{name: "BFCL v4 (single call)"}
	seen := map[string]bool{}
	for _, cat := range []string{"simple_python", "multiple", "live_simple", "live_multiple"} {
		questions := map[string]string{}
		err := eachLine(filepath.Join(dir, "BFCL_v4_"+cat+".json"), func(line []byte) error {
			var q struct {
				ID       string `json:"id"`
				Question [][]struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"question"`
				Function []struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					Parameters  struct {
						Properties json.RawMessage `json:"properties"`
					} `json:"parameters"`
				} `json:"function"`
			}
			if err := json.Unmarshal(line, &q); err != nil {
				return err
			}
			var text []string
			for _, turn := range q.Question {
				for _, m := range turn {
					if m.Role == "user" {
						text = append(text, m.Content)
					}
				}
			}
			questions[q.ID] = strings.Join(text, "\n")
			for _, f := range q.Function {
				if !seen[f.Name] {
					seen[f.Name] = true
					s.tools = append(s.tools, tool.Definition{Name: f.Name, Description: f.Description, InputSchema: schemaOf(f.Parameters.Properties)})
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		err = eachLine(filepath.Join(dir, "possible_answer", "BFCL_v4_"+cat+".json"), func(line []byte) error {
			var a struct {
				ID          string                       `json:"id"`
				GroundTruth []map[string]json.RawMessage `json:"ground_truth"`
			}
			if err := json.Unmarshal(line, &a); err != nil {
				return err
			}
			if len(a.GroundTruth) != 1 || len(a.GroundTruth[0]) != 1 || questions[a.ID] == "" {
				return nil
			}
			for name := range a.GroundTruth[0] {
				s.queries = append(s.queries, query{questions[a.ID], name})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// loadSealTools reads Seal-Tools: its whole tool list is the catalog, and
// every test query (in domain and out of it) that calls one tool, however
// often, is a query for it.
func loadSealTools(dir string) (*set, error) {
	s := &set{name: "Seal-Tools (test)"}
	err := eachLine(filepath.Join(dir, "tool.jsonl"), func(line []byte) error {
		var t struct {
			Name        string          `json:"api_name"`
			Description string          `json:"api_description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(line, &t); err != nil {
			return err
		}
		s.tools = append(s.tools, tool.Definition{Name: t.Name, Description: t.Description, InputSchema: schemaOf(t.Parameters)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, file := range []string{"test_in_domain.jsonl", "test_out_domain.jsonl"} {
		err := eachLine(filepath.Join(dir, file), func(line []byte) error {
			var q struct {
				Query   string `json:"query"`
				Calling []struct {
					API string `json:"api"`
				} `json:"calling"`
			}
			if err := json.Unmarshal(line, &q); err != nil {
				return err
			}
			if len(q.Calling) == 0 {
				return nil
			}
			for _, c := range q.Calling {
				if c.API != q.Calling[0].API {
					return nil
				}
			}
			s.queries = append(s.queries, query{q.Query, q.Calling[0].API})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// loadMetaTool reads MetaTool's single-tool queries (ToolE) and the
// descriptions of its 199 tools: the independent check, to which nothing
// is tuned.
func loadMetaTool(dir string) (*set, error) {
	s := &set{name: "MetaTool (held out)", heldOut: true}
	f, err := open(filepath.Join(dir, "plugin_des.json"))
	if err != nil {
		return nil, err
	}
	var des map[string]string
	err = json.NewDecoder(f).Decode(&des)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("plugin_des.json: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(des)) {
		s.tools = append(s.tools, tool.Definition{Name: name, Description: des[name]})
	}
	f, err = open(filepath.Join(dir, "all_clean_data.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("all_clean_data.csv: %w", err)
	}
	for _, r := range rows[1:] {
		if len(r) == 2 && des[r[1]] != "" {
			s.queries = append(s.queries, query{r[0], r[1]})
		}
	}
	return s, nil
}

// loadSets loads every set whose directory is under dir, and says which
// are missing.
func loadSets(dir string) ([]*set, []string, error) {
	var sets []*set
	var missing []string
	for _, l := range loaders {
		s, err := l.load(filepath.Join(dir, l.dir))
		if errors.Is(err, os.ErrNotExist) {
			missing = append(missing, l.dir)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("set %s: %w", l.dir, err)
		}
		if len(s.tools) == 0 || len(s.queries) == 0 {
			return nil, nil, fmt.Errorf("set %s: %d tools, %d queries", l.dir, len(s.tools), len(s.queries))
		}
		sets = append(sets, s)
	}
	return sets, missing, nil
}
