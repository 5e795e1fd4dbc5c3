package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// calls are the tool calls of a run. The host's loop launches them and
// takes their results; each runs on a goroutine of its own, within the
// calls in flight, and hands its result back on results, whose room for
// every call the run may make means it never waits to (and a run that
// ended leaves no goroutine waiting).
type calls struct {
	ctx     context.Context
	r       *Runtime
	sem     chan struct{}
	results chan completion
	wg      sync.WaitGroup
	made    int // the loop's

	mu      sync.Mutex
	counts  map[string]int // calls made, by path
	order   []string       // the paths, in the order of their first call
	failed  int
	refused int
	taken   int              // bytes of results, against Config.MaxResultBytes
	errs    map[string]error // each tool's last failure
	images  []tool.ImagePart // the results' images, by id
}

// A completion is a call's result for the script: its value (ok) or its
// error, as JSON; or, text, the value itself, a string. images are the ids
// of the value's images, in order.
type completion struct {
	id      int
	ok      bool
	text    bool
	payload string
	images  []int
}

func (c *calls) init(ctx context.Context, r *Runtime) {
	c.ctx, c.r = ctx, r
	c.sem = make(chan struct{}, r.cfg.MaxInFlight)
	c.results = make(chan completion, r.cfg.MaxCalls)
	c.counts = map[string]int{}
	c.errs = map[string]error{}
}

// wait waits for every call's goroutine to end.
func (c *calls) wait() { c.wg.Wait() }

// launch starts the call id: of the API's tool index, or with index -1 of
// the tool a script named (callTool), under the name it gave, so that a
// gate judges that name as it judges the model's. A place in flight is
// held while the tool runs.
func (c *calls) launch(id, index int, name string, args json.RawMessage, images bool) {
	c.made++
	path := name
	switch i, ok := c.r.api.Find(name); {
	case index >= 0 && index < c.r.api.Len():
		name, path = c.r.api.Name(index), c.r.api.Path(index)
	case ok:
		path = c.r.api.Path(i)
		if strings.TrimPrefix(name, "tools.") == path {
			name = c.r.api.Name(i) // a path is no name a handler knows
		}
	}
	c.mu.Lock()
	if c.counts[path] == 0 {
		c.order = append(c.order, path)
	}
	c.counts[path]++
	c.mu.Unlock()
	unknown := index < 0 && c.r.api.IsPath(name)
	c.wg.Go(func() {
		if unknown { // a path the API lacks: no name a gate or handler knows
			c.results <- c.complete(id, path, tool.Reply{}, &tool.UnservedError{Name: name}, false)
			return
		}
		select {
		case c.sem <- struct{}{}:
		case <-c.ctx.Done():
			c.results <- c.complete(id, path, tool.Reply{}, context.Cause(c.ctx), false)
			return
		}
		res, err := c.r.set.Handler.Call(c.ctx, name, args)
		<-c.sem
		c.results <- c.complete(id, path, res, err, images)
	})
}

// complete makes a call's outcome what the script reads, within the
// budget of results, and counts its failure if it failed.
func (c *calls) complete(id int, path string, res tool.Reply, err error, images bool) completion {
	var value completion
	if err == nil {
		var parts []tool.ImagePart
		value = completion{id: id, ok: true}
		value.payload, value.text, parts = scriptValue(res, images)
		value.images, err = c.take(path, len(value.payload), parts)
	}
	c.mu.Lock()
	if err != nil {
		c.errs[path] = err
		if errors.As(err, new(*tool.RefusedError)) {
			c.refused++
		} else {
			c.failed++
		}
	}
	c.mu.Unlock()
	if err == nil {
		return value
	}
	name, msg := thrown(path, err)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Tool    string `json:"tool"`
	}{name, msg, path})
	return completion{id: id, payload: b.String()}
}

// take counts path's result, n bytes and its images, which the host keeps
// for the script to return, against the budget of results, and returns
// the images' ids; or it says the result would pass the budget.
func (c *calls) take(path string, n int, images []tool.ImagePart) ([]int, error) {
	for _, im := range images {
		n += len(im.Data)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.r.cfg.MaxResultBytes
	if left := limit - c.taken; n > left {
		return nil, &resultsSpent{path: path, n: n, left: left, limit: limit}
	}
	c.taken += n
	var ids []int
	for _, im := range images {
		ids = append(ids, len(c.images))
		c.images = append(c.images, im)
	}
	return ids, nil
}

// returned returns the images of ids, each once, in their order.
func (c *calls) returned(ids []int) []tool.ImagePart {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []tool.ImagePart
	seen := map[int]bool{}
	for _, id := range ids {
		if id >= 0 && id < len(c.images) && !seen[id] {
			seen[id] = true
			out = append(out, c.images[id])
		}
	}
	return out
}

// resultsSpent says a call's result would pass the budget of results.
type resultsSpent struct {
	path           string
	n, left, limit int
}

func (e *resultsSpent) Error() string {
	return fmt.Sprintf("the result of %s, %d bytes, passes what is left of the script's budget of %s for results: %d bytes",
		e.path, e.n, size(e.limit), e.left)
}

// Unwrap returns the budget's error.
func (e *resultsSpent) Unwrap() error {
	return &BudgetError{Budget: "MaxResultBytes", Limit: size(e.limit)}
}

// failure returns the last failure of the tool at path.
func (c *calls) failure(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.errs[path]
}

// scriptValue is a result as a call resolves to it: the structured
// content when there is some, as the tool sent it; else the text, as it
// is (text); or, with images, the parts in order, each image a small
// object that describes it (its bytes only when the script asked for
// them), the images returned apart. Nothing is escaped for HTML: the
// script is no page, and "<" would cost it six bytes.
func scriptValue(res tool.Reply, images bool) (payload string, text bool, imgs []tool.ImagePart) {
	if len(res.Structured) > 0 && json.Valid(res.Structured) {
		return string(res.Structured), false, nil
	}
	if !res.HasImages() {
		return res.Text(), true, nil
	}
	type image struct {
		Type     string `json:"type"`
		MIMEType string `json:"mimeType"`
		Bytes    int    `json:"bytes"`
		Data     []byte `json:"data,omitempty"`
	}
	parts := make([]any, 0, len(res.Parts))
	for _, p := range res.Parts {
		switch p := p.(type) {
		case tool.TextPart:
			parts = append(parts, p.Text)
		case tool.ImagePart:
			im := image{Type: "image", MIMEType: p.MIMEType, Bytes: len(p.Data)}
			if images {
				im.Data = p.Data
			}
			parts = append(parts, im)
			imgs = append(imgs, p)
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(parts)
	return b.String(), false, imgs
}

// thrown is the Error a failed call throws: its name and message.
func thrown(path string, err error) (name, msg string) {
	var (
		failed  *tool.FailedError
		refused *tool.RefusedError
	)
	switch {
	case errors.As(err, new(*resultsSpent)):
		return "BudgetError", err.Error()
	case errors.As(err, &failed):
		return "ToolError", failed.Message
	case errors.As(err, &refused):
		return "RefusedError", refused.Message
	case errors.Is(err, tool.ErrUnserved):
		return "ReferenceError", fmt.Sprintf("there is no tool named %q", path)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "CallError", "the call was cancelled: " + err.Error()
	}
	return "CallError", untrusted.Line(err.Error())
}

// summary says the calls in one line.
func (c *calls) summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	var each []string
	for i, p := range c.order {
		n += c.counts[p]
		if i < 10 {
			each = append(each, fmt.Sprintf("%s %d", p, c.counts[p]))
		}
	}
	if n == 0 {
		return "no tool calls"
	}
	if len(c.order) > 10 {
		each = append(each, "…")
	}
	word := "calls"
	if n == 1 {
		word = "call"
	}
	s := fmt.Sprintf("%d tool %s (%s)", n, word, strings.Join(each, ", "))
	if c.failed > 0 {
		s += fmt.Sprintf("; %d failed", c.failed)
	}
	if c.refused > 0 {
		s += fmt.Sprintf("; %d refused", c.refused)
	}
	return s
}
