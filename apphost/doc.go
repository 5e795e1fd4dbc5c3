// Package apphost renders MCP Apps (the io.modelcontextprotocol/ui
// extension, 2026-01-26) in a browser: the interface a tool names in its
// _meta.ui, read from its server, shown in a sandboxed frame of a web
// agent's page, and the JSON-RPC bridge between the frame and the server,
// with the host deciding what the app may do.
//
// [New] returns an [http.Handler]; mount it under a prefix and load the
// script it serves in the page:
//
//	mux.Handle("/apps/", http.StripPrefix("/apps", apphost.New(apphost.Config{Servers: ts.Provider})))
//
//	<script src="/apps/host.js"></script>
//	const app = await McpApps.render(element, {
//	  server: "notes", tool: "notes_board",  // the tool's server and own name
//	  arguments: {...},                      // its call's arguments (ui/notifications/tool-input)
//	  result: {...},                         // its CallToolResult, if the page has it; or
//	  call: true,                            // let the host call the tool
//	  onMessage(text, app) {...},            // ui/message: put it in the conversation; false declines
//	  onContext({text, structured}, app) {}, // ui/update-model-context: for the model's next turn
//	  headers: {...},                        // added to each request (a page's credentials)
//	});
//	app.input(args); app.inputPartial(args); app.result(res); app.cancelled(reason);
//	app.contextChanged({theme: "dark"}); await app.teardown(reason); // true if the app answered
//
// The page renders an app once the model called its tool (or, with call,
// to try an app alone); the host's notifications wait for the app's
// ui/notifications/initialized.
//
// # Isolation
//
// Each app's document is served from frame/ID sandboxed "allow-scripts
// allow-forms" (on the iframe and in the document's own
// Content-Security-Policy header), never allow-same-origin: the browser
// gives it an opaque origin, unlike the page's and every other frame's, so
// one handler gives the separation the extension's sandbox proxy gets from
// a second origin, and keeps apps apart from each other too. The frame
// reaches the host only by postMessage, which the page passes to the
// handler. Its policy is a header nothing in the document can loosen, built
// from what its server declared (mcptool.AppCSP: nothing by default), with
// form-action 'none'; its permissions are only those the server asked for.
// Beside it a Connection-Allowlist header names the same declared origins
// and nothing else, with WebRTC blocked: in Chromium 152 and later it
// closes what CSP does not govern (WebRTC's STUN and TURN, preconnect and
// dns-prefetch, the frame's own navigations), in frames the app makes
// too. A browser without it enforces the policy alone.
//
// # What the handler checks
//
// It answers only requests whose Host is a name it serves (Config.Hosts;
// loopback names by default), so that a page of another site whose name
// was made to resolve to this machine (DNS rebinding) gets nothing. It
// takes posts only from the page's own scripts (JSON, same-origin by
// Sec-Fetch-Site and Origin), so neither a frame nor another site drives
// the host; it does not authenticate the page: mount it behind what guards
// the rest of the site. Every message of a frame is bounded (1 MiB) and
// checked whole before anything is done. An app may call the tools of its
// own server that apps may call (visibility "app" or none, and offered to
// the model if the model may call it too), past Config.Policy under the
// tool's alias; read its own server's resources; send ui/message,
// ui/update-model-context and ui/open-link when the page handles them; ask
// for a display mode it declared. Anything else is refused, saying why, and
// logged. At most 4 of a frame's calls and reads run at once, and at most
// Config.MaxFrames frames are open. SECURITY.md names each promise's test.
//
// Options: a host is described as data, a [Config]; zero is the default in
// every field but Servers. ExampleNew serves an app from a go-sdk server.
package apphost
