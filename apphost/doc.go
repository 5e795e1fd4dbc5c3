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
// ui/notifications/initialized, in the order given. An app asks to open a
// link in a bar the page shows in the app's box, opened only when the user
// says so; fullscreen, which it may ask for, has a button back.
//
// # Isolation
//
// The extension asks a web host for a sandbox proxy on an origin other than
// the page's, with the app in a frame inside it. This package gets the same
// separation from one handler, with no second origin to run: each app's
// document is served from frame/ID with the sandbox "allow-scripts
// allow-forms" both on the iframe and in the document's own
// Content-Security-Policy header, and never allow-same-origin. The browser
// then gives the document an opaque origin: unlike the page's, and unlike
// every other frame's (the reference proxy puts every app on its one
// sandbox origin, where they can reach each other). So the frame reads no
// DOM, global, cookie or storage of the page or of another app (window.top
// throws), opens no popup, navigates no top window, and reaches the host
// only by postMessage, which the page passes to the handler. Its policy is
// a header, which nothing in the document can loosen: the one
// mcptool.AppCSP.Policy builds from what the server declared (nothing by
// default, each kind of request only to the origins declared for it,
// object-src 'none'), and form-action 'none'. Its permissions (camera,
// microphone, geolocation, clipboard-write) are the iframe's allow
// attribute, only those the server asked for. An app that needs storage of
// its own origin does not get it here.
//
// # What the handler checks
//
// Posts are taken only from the page's own scripts: JSON, same-origin
// (Sec-Fetch-Site, Origin), so neither the frame (whose requests are
// cross-site, Origin "null") nor another site can drive the host, even where
// an app declared the host's origin as one it connects to. The handler does
// not authenticate the page: mount it behind what guards the rest of the
// site. Every message of a frame is bounded (1 MiB) and checked before
// anything is done: the envelope, the id (a string of at most 128 bytes or
// an integer), the method, each parameter. An app may:
//
//   - ui/initialize, ping;
//   - tools/call a tool of its own server that apps may call: its
//     _meta.ui.visibility holds "app" or is absent, and a tool the model may
//     call too must be one the model is offered; the Policy, if any, judges
//     the call under the tool's alias, as it judges the model's. Another
//     server's tool, a model-only tool, a denied one are refused, saying
//     why, and logged;
//   - resources/read on its own server;
//   - ui/message, ui/update-model-context, ui/open-link (an absolute http or
//     https URL), each only when the page handles it, and
//     ui/request-display-mode (inline and fullscreen) within the modes the
//     app declared;
//   - notifications/message (logged, cleaned), ui/notifications/initialized
//     and size-changed.
//
// At most 4 of a frame's calls and reads run at once, and at most
// Config.MaxFrames frames are open (the least recently used goes).
//
// Options: a host is described as data, a [Config]; zero is the default in
// every field but Servers.
package apphost
