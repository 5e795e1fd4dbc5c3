// mcpbridge web's page: the chat, its tool calls and their apps (rendered
// by the apps' host, /apps/host.js), and /app, one tool's app alone. The
// run's secret comes after # in the address and goes with every request;
// everything a server or an app sent is put on the page as text, never as
// HTML.
"use strict";
(function () {
  const secret = location.hash.slice(1);
  const headers = { Authorization: "Bearer " + secret };
  const log = document.getElementById("log");
  const form = document.getElementById("ask");
  const input = document.getElementById("text");
  const send = document.getElementById("send");
  const notice = document.getElementById("notice");
  const contexts = new Map(); // an app's latest context for the model, by app
  const apps = new Map();     // a call's rendered app, by call id
  let info = null;
  let busy = false;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function say(text) {
    notice.textContent = text;
    notice.hidden = false;
  }

  function scroll() { window.scrollTo(0, document.body.scrollHeight); }

  async function api(path, body) {
    const res = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, headers),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) {
      const data = await res.json().catch(() => ({}));
      throw new Error(data.error || "HTTP " + res.status);
    }
    return res;
  }

  // renderApp renders the app of a call in box.
  function renderApp(box, server, tool, opts) {
    return McpApps.render(box, Object.assign({
      server, tool, headers,
      onMessage(text, app) { return fromApp(text, tool); },
      onContext(ctx) { contexts.set(tool, ctx); return true; },
    }, opts));
  }

  // fromApp takes what an app says (ui/message) into the conversation: a
  // user's message, marked as the app's, and the model's turn on it.
  function fromApp(text, tool) {
    if (!info || !info.model) {
      const m = el("div", "msg user", text);
      m.prepend(el("span", "from", "from the app of " + tool + " (no model to answer)"));
      log.append(m);
      scroll();
      return true;
    }
    if (busy) return false;
    turn(text, "from the app of " + tool);
    return true;
  }

  function callCard(ev) {
    const card = el("div", "call");
    card.dataset.id = ev.id;
    card.append(el("div", "head", ev.name + " " + JSON.stringify(ev.arguments || {})));
    const progress = el("div", "progress");
    progress.hidden = true;
    card.append(progress);
    card.progress = progress;
    log.append(card);
    if (ev.app) {
      const pending = renderApp(card, ev.server, ev.tool, { arguments: ev.arguments || {} })
        .catch((e) => { card.append(el("div", "error", "the app could not be shown: " + e.message)); return null; });
      apps.set(ev.id, pending);
    }
    return card;
  }

  function showResult(card, ev) {
    card.progress.hidden = true;
    if (ev.isError) card.classList.add("failed");
    const d = el("details");
    d.append(el("summary", "", (ev.isError ? "failed: " : "← ") + ev.text.split("\n")[0].slice(0, 120)));
    d.append(el("pre", "", ev.text));
    card.append(d);
    const app = apps.get(ev.id);
    if (app && ev.result) app.then((a) => a && a.result(ev.result));
    apps.delete(ev.id);
  }

  // turn sends text to the model and shows the turn as its events come.
  async function turn(text, from) {
    busy = true;
    send.disabled = true;
    const m = el("div", "msg user", text);
    if (from) m.prepend(el("span", "from", from));
    log.append(m);
    scroll();
    const ctx = [...contexts].map(([app, c]) => ({ app, text: c.text || "", structured: c.structured }));
    contexts.clear();
    const cards = new Map();
    try {
      const res = await api("/api/chat", { text, context: ctx });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const ev = JSON.parse(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          if (ev.type === "call") cards.set(ev.id, callCard(ev));
          else if (ev.type === "progress" && cards.has(ev.id)) {
            const p = cards.get(ev.id).progress;
            p.hidden = false;
            p.textContent = (ev.total ? ev.progress + "/" + ev.total : String(ev.progress)) + (ev.text ? " " + ev.text : "");
          } else if (ev.type === "result" && cards.has(ev.id)) showResult(cards.get(ev.id), ev);
          else if (ev.type === "answer") log.append(el("div", "msg answer", ev.text));
          else if (ev.type === "error") log.append(el("div", "msg error", ev.text));
          scroll();
        }
      }
    } catch (e) {
      log.append(el("div", "msg error", e.message));
    } finally {
      // An app whose call never ended (the turn failed, or was stopped) is told.
      for (const [id, app] of apps) if (cards.has(id)) app.then((a) => a && a.cancelled("the turn ended before the call did"));
      for (const id of cards.keys()) apps.delete(id);
      busy = false;
      send.disabled = false;
      scroll();
    }
  }

  // appPage renders the app of the tool the address names, the host
  // calling it with the arguments given: no model needed.
  async function appPage() {
    const q = new URLSearchParams(location.search);
    const name = q.get("tool") || "";
    let args;
    try { args = JSON.parse(q.get("args") || "{}"); } catch (e) { return say("args is not JSON: " + e.message); }
    const found = info.apps.find((a) => a.name === name || a.tool === name || a.server + "/" + a.tool === name);
    if (!found) {
      const names = info.apps.map((a) => a.name).join(", ") || "none";
      return say((name ? "No tool " + name + " with an app." : "Name a tool: /app?tool=NAME&args=JSON.") + " Tools with an app: " + names + ".");
    }
    const card = el("div", "call");
    card.append(el("div", "head", found.name + " " + JSON.stringify(args)));
    log.append(card);
    const out = el("details");
    try {
      await renderApp(card, found.server, found.tool, {
        arguments: args, call: true,
        onResult(res) {
          out.replaceChildren(el("summary", "", res.isError ? "the call failed" : "the result"), el("pre", "", JSON.stringify(res, null, 2)));
          card.append(out);
        },
      });
    } catch (e) {
      say(e.message);
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || busy) return;
    input.value = "";
    turn(text);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });

  (async function () {
    const status = document.getElementById("status");
    try {
      info = await (await api("/api/info")).json();
    } catch (e) {
      status.textContent = "";
      return say(e.message);
    }
    status.textContent = (info.model ? "model: " + info.model : "no model") + " · servers: " + info.servers.join(", ");
    if (location.pathname === "/app") return appPage();
    form.hidden = false;
    if (!info.model) {
      say(info.noModel + ". Restart mcpbridge web with one set. Meanwhile /app?tool=NAME&args=JSON shows a tool's app" +
        (info.apps.length ? " (tools with an app: " + info.apps.map((a) => a.name).join(", ") + ")" : "") + ".");
      send.disabled = true;
    }
    input.focus();
  })();
})();
