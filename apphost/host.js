// The page's half of mcpbridge's host of MCP Apps (package apphost): it
// puts an app in a sandboxed frame and passes the frame's messages to the
// handler, which checks and answers them. Nothing the frame sends is put
// in the page as HTML; only messages from the frame's own window are read.
//
//   const app = await McpApps.render(container, {server, tool, arguments, result, call})
//   app.input(args); app.inputPartial(args); app.result(callToolResult);
//   app.cancelled(reason); app.contextChanged(partialHostContext); await app.teardown(reason)
"use strict";
(function () {
  const base = new URL(".", document.currentScript.src);
  const maxMessage = 1 << 20;

  async function post(path, body, headers) {
    const res = await fetch(new URL(path, base), {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, headers || {}),
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    if (res.status === 204) return {};
    const data = await res.json().catch(() => ({ error: "apphost: HTTP " + res.status }));
    if (!res.ok) throw new Error(data.error || "apphost: HTTP " + res.status);
    return data;
  }

  function hostContext(opts) {
    const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    return Object.assign({
      theme: dark ? "dark" : "light",
      displayMode: "inline",
      availableDisplayModes: ["inline", "fullscreen"],
      containerDimensions: { maxHeight: opts.maxHeight || 600 },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: /Mobi|Android/i.test(navigator.userAgent) ? "mobile" : "web",
      deviceCapabilities: { touch: "ontouchstart" in window, hover: window.matchMedia && window.matchMedia("(hover: hover)").matches },
    }, opts.context || {});
  }

  // An App is one rendered app: its frame and the bridge to it.
  class App {
    constructor(container, opts, info) {
      this.opts = opts;
      this.info = info;
      this.headers = opts.headers || {};
      this.initialized = false;
      this.queue = [];
      this.pending = new Map();
      this.nextID = 0;
      this.mode = "inline";
      this.maxHeight = opts.maxHeight || 600;
      this.box = document.createElement("div");
      this.box.className = "mcp-app" + (info.prefersBorder === false ? "" : " mcp-app-border");
      const frame = document.createElement("iframe");
      frame.setAttribute("sandbox", info.sandbox);
      if (info.allow) frame.setAttribute("allow", info.allow);
      frame.setAttribute("referrerpolicy", "no-referrer");
      frame.title = "App of " + opts.tool;
      frame.style.cssText = "display:block;width:100%;height:" + Math.min(320, this.maxHeight) + "px;border:0;";
      this.frame = frame;
      this.onMessage = (event) => this.receive(event);
      window.addEventListener("message", this.onMessage);
      if (window.matchMedia && !(opts.context && opts.context.theme)) {
        // The user's theme changes: so does the app's.
        this.themeWatch = window.matchMedia("(prefers-color-scheme: dark)");
        this.onTheme = (e) => this.contextChanged({ theme: e.matches ? "dark" : "light" });
        this.themeWatch.addEventListener("change", this.onTheme);
      }
      frame.src = new URL(info.src, base).href;
      this.box.append(frame);
      container.append(this.box);
    }

    // receive takes one message of the frame; any other window's is ignored.
    async receive(event) {
      if (!this.frame || event.source !== this.frame.contentWindow) return;
      const m = event.data;
      let text;
      try { text = JSON.stringify(m); } catch (e) { return; }
      if (!m || typeof m !== "object" || Array.isArray(m) || !text || text.length > maxMessage) return;
      if (m.method === undefined && m.id !== undefined) { // the app's answer to the host's request
        const done = this.pending.get(m.id);
        if (done) { this.pending.delete(m.id); done(m); }
        return;
      }
      let answer;
      try {
        answer = await post("rpc/" + this.info.frame, m, this.headers);
      } catch (e) {
        if (m.id !== undefined) this.reply(m.id, undefined, { code: -32603, message: String(e.message || e) });
        return;
      }
      if (answer.reply) this.post(answer.reply);
      if (answer.action) this.act(m.id, answer.action);
    }

    // act does what only the page can do, and answers the request.
    async act(id, a) {
      switch (a.kind) {
        case "initialized":
          this.initialized = true;
          if (this.opts.arguments !== undefined) this.notify("ui/notifications/tool-input", { arguments: this.opts.arguments || {} });
          for (const [method, params] of this.queue) this.notify(method, params);
          this.queue = [];
          if (this.opts.result !== undefined) this.result(this.opts.result);
          else if (this.opts.call) this.callTool();
          return;
        case "size":
          if (typeof a.height === "number" && this.mode === "inline") {
            this.frame.style.height = Math.min(Math.ceil(a.height), this.maxHeight) + "px";
          }
          return;
        case "message":
          return this.hook(id, this.opts.onMessage, [a.text, this], "the host declined the message");
        case "context":
          return this.hook(id, this.opts.onContext, [{ text: a.text, structured: a.structured }, this], "the host declined the context");
        case "open-link":
          return this.confirmLink(id, a.url);
        case "display-mode": {
          if (a.declared && (a.mode === "inline" || a.mode === "fullscreen")) this.setMode(a.mode);
          return this.reply(id, { mode: this.mode });
        }
      }
    }

    // setMode shows the app inline or over the whole page, with a button
    // that brings it back, and tells the app.
    setMode(mode) {
      if (mode === this.mode || !this.frame) return;
      this.mode = mode;
      const full = mode === "fullscreen";
      this.box.classList.toggle("mcp-app-fullscreen", full);
      this.box.style.cssText = full ? "position:fixed;inset:0;z-index:1000;background:Canvas;display:flex;flex-direction:column;" : "";
      this.frame.style.height = full ? "100%" : Math.min(320, this.maxHeight) + "px";
      if (full) {
        this.back = document.createElement("button");
        this.back.className = "mcp-app-inline";
        this.back.textContent = "Back to the conversation";
        this.back.onclick = () => this.setMode("inline");
        this.box.prepend(this.back);
      } else if (this.back) {
        this.back.remove();
        this.back = null;
      }
      this.notify("ui/notifications/host-context-changed", { displayMode: mode });
    }

    async hook(id, fn, args, declined) {
      let ok = false;
      try { ok = fn ? (await fn.apply(null, args)) !== false : false; } catch (e) { ok = false; }
      if (ok) this.reply(id, {});
      else this.reply(id, undefined, { code: -32000, message: declined });
    }

    // confirmLink asks the user, in the app's box, whether to open url.
    confirmLink(id, url) {
      const bar = document.createElement("div");
      bar.className = "mcp-app-link";
      const text = document.createElement("span");
      text.textContent = "The app asks to open " + url + " (" + new URL(url).host + ")";
      const yes = document.createElement("button");
      yes.textContent = "Open";
      yes.className = "mcp-app-link-open";
      const no = document.createElement("button");
      no.textContent = "Cancel";
      no.className = "mcp-app-link-cancel";
      bar.append(text, yes, no);
      this.box.prepend(bar);
      yes.onclick = () => {
        bar.remove();
        window.open(url, "_blank", "noopener,noreferrer");
        this.reply(id, {});
      };
      no.onclick = () => {
        bar.remove();
        this.reply(id, undefined, { code: -32000, message: "the user declined to open the link" });
      };
    }

    // callTool makes the host's call of the app's tool, for a page that has
    // no result of its own (a developer's page of one app).
    async callTool() {
      try {
        this.result(await post("call/" + this.info.frame, { arguments: this.opts.arguments || {} }, this.headers));
      } catch (e) {
        this.result({ isError: true, content: [{ type: "text", text: String(e.message || e) }] });
      }
    }

    // result hands the app the result of its tool's call.
    result(res) {
      if (this.opts.onResult) this.opts.onResult(res, this);
      this.send("ui/notifications/tool-result", res);
    }

    // input hands the app the arguments of its tool's call (a page that
    // renders the app before the call is made); inputPartial, those the
    // model has written so far.
    input(args) { this.send("ui/notifications/tool-input", { arguments: args || {} }); }

    inputPartial(args) { this.send("ui/notifications/tool-input-partial", { arguments: args || {} }); }

    cancelled(reason) { this.send("ui/notifications/tool-cancelled", { reason: String(reason || "") }); }

    contextChanged(ctx) { this.send("ui/notifications/host-context-changed", ctx); }

    // teardown tells the app it goes, waits for its answer (5 s at most),
    // and removes it; it says whether the app answered.
    async teardown(reason) {
      let answered = false;
      if (this.initialized && this.frame) {
        const id = "teardown-" + (++this.nextID);
        answered = await new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), 5000);
          this.pending.set(id, () => { clearTimeout(timer); resolve(true); });
          this.post({ jsonrpc: "2.0", id, method: "ui/resource-teardown", params: { reason: String(reason || "") } });
        });
      }
      window.removeEventListener("message", this.onMessage);
      if (this.themeWatch) this.themeWatch.removeEventListener("change", this.onTheme);
      this.box.remove();
      this.frame = null;
      post("close/" + this.info.frame, {}, this.headers).catch(() => {});
      return answered;
    }

    send(method, params) {
      if (this.initialized) this.notify(method, params);
      else this.queue.push([method, params]);
    }

    notify(method, params) { this.post({ jsonrpc: "2.0", method, params }); }

    reply(id, result, error) {
      if (id === undefined || id === null) return;
      this.post(error ? { jsonrpc: "2.0", id, error } : { jsonrpc: "2.0", id, result });
    }

    // post sends to the frame's window. Its origin is opaque, so no other
    // target origin would reach it; a document the app navigated the frame
    // to is as sandboxed, and gets what its app was getting.
    post(msg) {
      if (this.frame && this.frame.contentWindow) this.frame.contentWindow.postMessage(msg, "*");
    }
  }

  window.McpApps = {
    // render opens the app of opts.tool of opts.server in container.
    async render(container, opts) {
      const info = await post("open", {
        server: opts.server,
        tool: opts.tool,
        context: hostContext(opts),
        handles: { message: !!opts.onMessage, modelContext: !!opts.onContext, links: opts.links !== false },
      }, opts.headers);
      return new App(container, opts, info);
    },
  };
})();
