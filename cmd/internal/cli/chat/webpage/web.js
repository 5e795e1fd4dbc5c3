// mcpbridge web's page: the chat, its tool calls and their apps (rendered
// by the apps' host, /apps/host.js), what a server asks during a turn, and
// /app, one tool's app alone. The run's secret comes after # in the
// address and goes with every request; everything a server or an app sent
// is put on the page as text, never as HTML. Each page (tab) has its own
// conversation, its id kept for the tab (sessionStorage) so that a reload
// shows it again; what an app says waits by the input for the person.
"use strict";
(function () {
  const secret = location.hash.slice(1);
  const headers = { Authorization: "Bearer " + secret };
  const log = document.getElementById("log");
  const form = document.getElementById("ask");
  const input = document.getElementById("text");
  const send = document.getElementById("send");
  const stop = document.getElementById("stop");
  const notice = document.getElementById("notice");
  const newButton = document.getElementById("new");
  const pending = document.getElementById("pending");
  const pendingSend = document.getElementById("pending-send");
  const pendingDiscard = document.getElementById("pending-discard");
  const contexts = new Map(); // an app's latest context for the model, by app
  let info = null;
  let busy = false;
  let waiting = null; // the app's message waiting for the person: its answer

  // The page's conversation: its id, kept for the tab and the path.
  const conversationKey = "mcpbridge-conversation:" + location.pathname;
  let conversation = sessionStorage.getItem(conversationKey) || newConversationID();

  function newConversationID() {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    const id = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem(conversationKey, id);
    return id;
  }

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
      const err = new Error(data.error || "HTTP " + res.status);
      err.fields = data.fields;
      throw err;
    }
    return res;
  }

  // askCard shows what a server asks during the turn: a form, a page to
  // open, a request for the model; the answer goes back with its id.
  function askCard(q) {
    const card = el("div", "ask");
    card.dataset.id = q.id;
    card.dataset.kind = q.kind;
    const who = "server " + q.server + (q.tool ? " (tool " + q.tool + ")" : "");
    const asks = { form: " asks:", url: " asks you to open a page:", sampling: " asks the model, if you approve:" }[q.kind];
    card.append(el("div", "who", who + asks));
    if (q.message) card.append(el("p", "text", q.message));
    const problem = el("div", "problem");
    const buttons = el("div", "buttons");
    async function answer(action, content) {
      problem.textContent = "";
      for (const e of card.querySelectorAll(".field-problem")) e.textContent = "";
      try {
        await api("/api/answer", { id: q.id, action, content });
        close(card, action);
      } catch (e) {
        if (!e.fields) return void (problem.textContent = e.message);
        for (const [name, msg] of Object.entries(e.fields)) {
          const at = name && card.querySelector('.field-problem[data-name="' + CSS.escape(name) + '"]');
          if (at) at.textContent = msg; else problem.textContent = msg;
        }
      }
    }
    function button(text, cls, onclick) {
      const b = el("button", cls, text);
      b.type = "button";
      b.onclick = onclick;
      buttons.append(b);
      return b;
    }
    if (q.kind === "form") {
      const form = el("form", "fields");
      form.noValidate = true; // checked by mcpbridge, as the terminal checks a typed value
      const read = (q.fields || []).map((f) => field(form, f));
      form.onsubmit = (e) => {
        e.preventDefault();
        const content = {};
        for (const r of read) content[r.name] = r.value();
        answer("accept", content);
      };
      card.append(form);
      button("Send", "accept", null).type = "submit";
      form.append(buttons);
    } else if (q.kind === "url") {
      card.append(el("code", "url", q.url), el("div", "host", "host: " + q.host));
      if (q.warning) card.append(el("div", "warning", "warning: " + q.warning));
      card.append(buttons);
      button("Open it", "accept", () => {
        if (/^https?:\/\//i.test(q.url)) window.open(q.url, "_blank", "noopener,noreferrer");
        answer("accept");
      });
    } else {
      if (q.system) card.append(el("div", "system", "its system prompt: " + q.system));
      card.append(el("div", "detail", q.detail), buttons);
      button("Approve", "accept", () => answer("accept"));
    }
    button(q.kind === "sampling" ? "Refuse" : q.kind === "url" ? "No" : "Decline", "decline", () => answer("decline"));
    if (q.kind !== "sampling") button("Cancel", "cancel", () => answer("cancel"));
    card.append(problem);
    log.append(card);
    const first = card.querySelector("input, select, button");
    if (first) first.focus();
    return card;
  }

  // field renders one field of a form, and returns how to read its value:
  // the text typed (checked by mcpbridge), a choice's value, the values
  // picked.
  function field(form, f) {
    const box = el("div", "field");
    box.dataset.name = f.name;
    const id = "f-" + Math.random().toString(36).slice(2);
    const label = el("label", "", f.title + (f.required ? " *" : ""));
    label.htmlFor = id;
    box.append(label);
    if (f.description) box.append(el("div", "description", f.description));
    let value;
    const def = f.default;
    if (f.kind === "multiselect") {
      const set = el("div", "choices");
      set.id = id;
      for (const c of f.choices) {
        const l = el("label", "choice");
        const box2 = el("input");
        box2.type = "checkbox";
        box2.value = c.value;
        box2.checked = Array.isArray(def) && def.includes(c.value);
        l.append(box2, document.createTextNode(" " + c.title));
        set.append(l);
      }
      box.append(set);
      value = () => [...set.querySelectorAll("input:checked")].map((i) => i.value);
    } else if (f.kind === "select" || f.kind === "boolean") {
      const sel = el("select");
      sel.id = id;
      const opts = f.kind === "boolean" ? [{ value: "yes", title: "yes" }, { value: "no", title: "no" }] : f.choices;
      if (!f.required || def === undefined) sel.append(new Option("—", ""));
      for (const c of opts) sel.append(new Option(c.title, c.value));
      sel.value = def === undefined ? "" : f.kind === "boolean" ? (def ? "yes" : "no") : def;
      box.append(sel);
      value = () => sel.value;
    } else {
      const input = el("input");
      input.id = id;
      input.type = { email: "email", uri: "url", date: "date" }[f.format] || (f.kind === "string" ? "text" : "number");
      if (f.kind === "integer") input.step = "1";
      if (f.kind === "number") input.step = "any";
      if (f.min !== undefined && input.type === "number") input.min = f.min;
      if (f.max !== undefined && input.type === "number") input.max = f.max;
      if (f.format === "date-time") input.placeholder = "2026-01-31T09:00:00Z";
      if (def !== undefined) input.value = String(def);
      box.append(input);
      value = () => input.value;
    }
    const problem = el("div", "field-problem");
    problem.dataset.name = f.name;
    box.append(problem);
    form.append(box);
    return { name: f.name, value };
  }

  // close ends a question on the page: answered, or ended with its call or
  // turn.
  function close(card, action, why) {
    if (!card || card.classList.contains("done")) return;
    card.classList.add("done");
    for (const e of card.querySelectorAll("input, select, button")) e.disabled = true;
    const said = { accept: card.dataset.kind === "sampling" ? "approved" : card.dataset.kind === "url" ? "opened" : "sent", decline: card.dataset.kind === "sampling" ? "refused" : "declined", cancel: "cancelled" }[action] || action;
    card.append(el("div", "outcome", said + (why ? ": " + why : "")));
  }

  // renderApp renders the app of a call in box.
  function renderApp(box, server, tool, opts) {
    return McpApps.render(box, Object.assign({
      server, tool, headers,
      onMessage(text) { return fromApp(text, server, tool); },
      onContext(ctx) { contexts.set(tool, ctx); return true; },
    }, opts));
  }

  // fromApp takes what an app says (ui/message): it is the app's, not the
  // person's, so it starts no turn of its own. It waits by the input, marked
  // as the app's, until the person sends it to the model or discards it,
  // and the app is answered then; one at a time, so that the text the
  // person read is the text sent.
  function fromApp(text, server, tool) {
    if (!info || !info.model) {
      const m = el("div", "msg user", text);
      m.prepend(el("span", "from", "from the app of " + tool + " (no model to answer)"));
      log.append(m);
      scroll();
      return true;
    }
    if (waiting) return false;
    return new Promise((resolve) => {
      waiting = resolve;
      pending.querySelector(".who").textContent = "The app of " + tool + " (server " + server + ") asks to send the model:";
      pending.querySelector(".text").textContent = text;
      pending.hidden = false;
      pendingSend.disabled = busy;
      pendingSend.onclick = () => {
        if (busy) return;
        answerApp(true);
        turn(text, { server, tool });
      };
      pendingDiscard.onclick = () => answerApp(false);
      pendingSend.focus();
    });
  }

  // answerApp ends the app's message waiting: sent (true) or not.
  function answerApp(sent) {
    if (!waiting) return;
    const resolve = waiting;
    waiting = null;
    pending.hidden = true;
    resolve(sent);
  }

  function callCard(ev, apps) {
    const card = el("div", "call");
    card.dataset.id = ev.id;
    card.append(el("div", "head", ev.name + " " + JSON.stringify(ev.arguments || {})));
    const progress = el("div", "progress");
    progress.hidden = true;
    card.append(progress);
    card.progress = progress;
    log.append(card);
    if (ev.app) {
      const opened = renderApp(card, ev.server, ev.tool, { arguments: ev.arguments || {} })
        .catch((e) => { card.append(el("div", "error", "the app could not be shown: " + e.message)); return null; });
      apps.set(ev.id, opened);
    }
    return card;
  }

  function showResult(card, ev, apps) {
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

  // A shown is what one turn put on the page: its calls' cards and apps,
  // by call id, and the answer as it is written.
  function shown() { return { cards: new Map(), apps: new Map(), writing: null }; }

  // render puts one event of a turn on the page, as it comes or as the
  // conversation's transcript replays it.
  function render(ev, at) {
    if (ev.type === "user") {
      const m = el("div", "msg user", ev.text);
      if (ev.from) m.prepend(el("span", "from", ev.from));
      log.append(m);
    } else if (ev.type === "text") {
      if (!at.writing) log.append(at.writing = el("div", "msg answer writing", ""));
      at.writing.textContent += ev.text;
    } else if (ev.type === "call") {
      at.writing = null;
      at.cards.set(ev.id, callCard(ev, at.apps));
    } else if (ev.type === "progress" && at.cards.has(ev.id)) {
      const p = at.cards.get(ev.id).progress;
      p.hidden = false;
      p.textContent = (ev.total ? ev.progress + "/" + ev.total : String(ev.progress)) + (ev.text ? " " + ev.text : "");
    } else if (ev.type === "result" && at.cards.has(ev.id)) showResult(at.cards.get(ev.id), ev, at.apps);
    else if (ev.type === "ask") askCard(ev.question);
    else if (ev.type === "asked") close(log.querySelector('.ask[data-id="' + CSS.escape(ev.id) + '"]'), ev.action, ev.text);
    else if (ev.type === "note") log.append(el("div", "note", ev.text));
    else if (ev.type === "answer") {
      // The whole answer, cleaned as a whole, in place of its pieces.
      if (at.writing) {
        at.writing.textContent = ev.text;
        at.writing.classList.remove("writing");
      } else log.append(el("div", "msg answer", ev.text));
      at.writing = null;
    }
    else if (ev.type === "error") log.append(el("div", "msg error", ev.text));
  }

  // turn sends text to the model, the person's or, sent on by the person,
  // the app's that from names, and shows the turn as its events come.
  async function turn(text, from) {
    busy = true;
    send.hidden = true;
    stop.hidden = false;
    stop.disabled = false;
    newButton.disabled = true;
    pendingSend.disabled = true;
    const ctx = [...contexts].map(([app, c]) => ({ app, text: c.text || "", structured: c.structured }));
    contexts.clear();
    const at = shown();
    try {
      const res = await api("/api/chat", { conversation, text, from, context: ctx });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          render(JSON.parse(buf.slice(0, nl)), at);
          buf = buf.slice(nl + 1);
          scroll();
        }
      }
    } catch (e) {
      log.append(el("div", "msg error", e.message));
      if (!from && !input.value) input.value = text; // not sent: the person's to send again
    } finally {
      // An app whose call never ended (the turn failed, or was stopped) is told.
      for (const app of at.apps.values()) app.then((a) => a && a.cancelled("the turn ended before the call did"));
      for (const w of log.querySelectorAll(".writing")) w.classList.remove("writing");
      // A question still shown ended with the turn.
      for (const card of log.querySelectorAll(".ask:not(.done)")) close(card, "cancel", "the turn ended");
      busy = false;
      send.hidden = false;
      stop.hidden = true;
      newButton.disabled = false;
      pendingSend.disabled = false;
      scroll();
    }
  }

  // replay shows the conversation as the page last showed it: its
  // transcript, each turn's events in order.
  async function replay() {
    try {
      const { events } = await (await api("/api/conversation?id=" + encodeURIComponent(conversation))).json();
      let at = shown();
      for (const ev of events) {
        if (ev.type === "user") at = shown();
        render(ev, at);
      }
      scroll();
    } finally {
      log.removeAttribute("aria-busy"); // shown as it was
    }
  }

  // newConversation starts the page's conversation anew: a new id, an
  // empty page (and on /app the app again).
  function newConversation() {
    if (busy) return;
    answerApp(false);
    conversation = newConversationID();
    contexts.clear();
    log.replaceChildren();
    if (location.pathname === "/app") appPage();
    input.focus();
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
  // Stop cancels the turn, its tool calls and its question: the page's Ctrl-C.
  stop.addEventListener("click", () => {
    stop.disabled = true;
    api("/api/stop", {}).catch((e) => log.append(el("div", "msg error", e.message)));
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
      log.removeAttribute("aria-busy");
      return say(e.message);
    }
    status.textContent = (info.model ? "model: " + info.model : "no model") + " · servers: " + info.servers.join(", ");
    newButton.hidden = false;
    newButton.addEventListener("click", newConversation);
    if (location.pathname === "/app") {
      await appPage();
      return replay().catch((e) => say(e.message));
    }
    await replay().catch((e) => say(e.message));
    form.hidden = false;
    if (!info.model) {
      say(info.noModel + ". Restart mcpbridge web with one set. Meanwhile /app?tool=NAME&args=JSON shows a tool's app" +
        (info.apps.length ? " (tools with an app: " + info.apps.map((a) => a.name).join(", ") + ")" : "") + ".");
      send.disabled = true;
    }
    input.focus();
  })();
})();
