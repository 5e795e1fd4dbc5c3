package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a terminal, a form is asked a field at a time, each with what it
// takes and its default, a wrong value asked again, and the whole shown
// for review before it is sent; a decline is sent as one.
func TestElicitationOnATerminal(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	args := append([]string{"call", "trigger-elicitation-request"}, everything(t)...)
	// Answer; the name; agree; the first line's default; a bad email, then
	// a good one; skip the homepage and birthdate; every default after;
	// send.
	typed := "y\nAda Lovelace\ny\n\nnope\nada@example.com\n\n\n\n\n\n\n\n\n\ny\n"
	r := askOnTerminal(t, dir, home, typed, args...)
	expect(t, r, 0, "Name: Ada Lovelace", "Agreed to terms: true", "Email: ada@example.com", "Favorite Integer: 42")
	for _, shown := range []string{
		`server "mcp-server-everything" (tool "trigger-elicitation-request") asks: Please provide inputs for the following fields:`,
		"Answer? [Y]es, [d]ecline, [c]ancel:",
		"String: Your full, legal name (text, required):",
		"Integer: Your favorite integer (do not give us your phone number, pin, or other sensitive info) (integer 1 to 100) [42]:",
		"(one of 1 Monica, 2 Rachel, 3 Joey, 4 Chandler, 5 Ross, 6 Phoebe) [Monica]:",
		"(any of 1 Tuna, 2 Salmon, 3 Trout; separate with commas) [Tuna]:",
		`"nope" is not a valid email`,
		`Send {"check":true,`,
	} {
		if !strings.Contains(r.err, shown) {
			t.Errorf("the terminal lacks %q:\n%s", shown, r.err)
		}
	}
	r = askOnTerminal(t, dir, home, "d\n", args...)
	expect(t, r, 0, "User declined to provide the requested information")
}

// A URL elicitation on a terminal shows the whole URL and its host, and
// opens it only when the user says yes, in the browser ($BROWSER here: a
// script that notes the URL it was given); mcpbridge never fetches it.
func TestURLElicitationOnATerminal(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	page, visits := pageServer(t)
	opened := filepath.Join(dir, "opened")
	browser := writeConfig(t, dir, "browser", "#!/bin/sh\necho \"$1\" > "+opened+"\n")
	if err := os.Chmod(browser, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	args := append([]string{"call", "trigger-url-elicitation", `{"url": "` + page + `", "message": "Connect your account."}`}, everything(t)...)
	r := askOnTerminal(t, dir, home, "n\n", args...)
	expect(t, r, 0, "asks you to open a page: Connect your account.", "  "+page, "  host: 127.0.0.1", "User declined to open the URL")
	if _, err := os.Stat(opened); err == nil {
		t.Fatal("the page was opened without consent")
	}
	r = askOnTerminal(t, dir, home, "y\n", args...)
	expect(t, r, 0, "User completed the URL elicitation flow")
	if data, err := os.ReadFile(opened); err != nil || strings.TrimSpace(string(data)) != page {
		t.Fatalf("the browser was given %q, %v", data, err)
	}
	if visits.Load() != 0 {
		t.Fatalf("the page was fetched %d times", visits.Load())
	}
}

// server-everything's research task asks for a clarification midway: on a
// terminal it is asked as any form is, and the task completes with the
// answer given.
func TestResearchTaskAsksOnATerminal(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	args := append([]string{"call", "simulate-research-query", `{"topic": "python", "ambiguous": true}`}, everything(t)...)
	r := askOnTerminal(t, dir, home, "y\nsnake\ny\n", args...)
	expect(t, r, 0, "# Research Report: python (snake)")
	for _, shown := range []string{": input_required: Found multiple interpretations", `(tool "simulate-research-query") asks: The research query "python"`, ": completed: "} {
		if !strings.Contains(r.err, shown) {
			t.Errorf("the terminal lacks %q:\n%s", shown, r.err)
		}
	}
}
