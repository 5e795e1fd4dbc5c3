package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// wellBehaved answers req as a plain server does, whatever the mode: it
// lists echo and flaky, and its tools/call also answers these names, which
// let a test make the server process act:
//
//	big    a text of "size" bytes ("char"s, default a), the id written last
//	env    the server's environment, one variable a line
//	cwd    the server's working directory
//	spawn  starts "sleep 300" and answers its pid
//	exit   exits with status 4 before answering
//	flaky  see [Flaky]
func wellBehaved(req *Request) string {
	switch req.Method {
	case "server/discover":
		return Error(req.ID, -32601, "method not found")
	case "initialize":
		return Result(req.ID, InitializeResult("2025-06-18"))
	case "tools/list":
		return Result(req.ID, map[string]any{"tools": []any{Echo, Flaky}})
	case "tools/call":
		return call(req)
	case "skills/list":
		return Result(req.ID, json.RawMessage(`{"skills":[{"name":"cooking"}],"zeta":1,"alpha":2}`))
	case "ping":
		return Result(req.ID, map[string]any{})
	}
	return Error(req.ID, -32601, "method not found")
}

func call(req *Request) string {
	name, args := CallParams(req)
	text := fmt.Sprint(args["text"])
	switch name {
	case "big":
		n, _ := args["size"].(float64)
		var answer strings.Builder
		io.Copy(&answer, big(req.ID, int64(n), args["char"]))
		return answer.String()
	case "env":
		text = strings.Join(os.Environ(), "\n")
	case "cwd":
		text, _ = os.Getwd()
	case "spawn":
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			return Error(req.ID, -32603, err.Error())
		}
		text = fmt.Sprint(cmd.Process.Pid)
	case "exit":
		os.Exit(4)
	case "flaky":
		// The first call dies mid-call; the next server answers.
		marker := os.Getenv(MarkerEnv)
		if _, err := os.Stat(marker); err != nil {
			os.WriteFile(marker, nil, 0o600)
			os.Exit(5)
		}
		text = "answered on the second try"
	}
	return Text(req.ID, text)
}
