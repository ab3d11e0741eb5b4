/* Turnframe web chat (docs/web-chat.md). Plain JavaScript, no build step.

   Talks to the /v1 API (docs/serving.md): GET /v1/session, GET /v1/conversations/{id},
   POST /v1/conversations/{id}/turns as a server-sent-event stream, GET /v1/turns/{id}/events
   to resume a broken stream, GET /v1/conversations/{id}/cards and GET /v1/cards/{id} for
   the cards' state. Blocks are rendered only from the server's committed `blocks` event. */
(function () {
  "use strict";

  var STRINGS = window.TurnframeStrings || { en: {} };
  var LOCALE_NAMES = { "en": "English", "pt-PT": "Português" };
  var MAX_ATTEMPTS = 5;
  var state = {
    session: null,
    conversationId: null,
    locale: "en",
    busy: false,
  };

  /* ---- small helpers ------------------------------------------------------------- */

  function $(id) { return document.getElementById(id); }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function uuid() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") {
      return window.crypto.randomUUID();
    }
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); });
    return h.slice(0, 4).join("") + "-" + h.slice(4, 6).join("") + "-" + h.slice(6, 8).join("") +
      "-" + h.slice(8, 10).join("") + "-" + h.slice(10).join("");
  }

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }

  function utf8Length(text) { return new TextEncoder().encode(text).length; }

  function table(locale) {
    if (STRINGS[locale]) return STRINGS[locale];
    var lang = String(locale).split("-")[0];
    for (var key in STRINGS) {
      if (key.split("-")[0] === lang) return STRINGS[key];
    }
    return STRINGS.en || {};
  }

  function t(key, vars) {
    var s = table(state.locale)[key];
    if (s === undefined) s = (STRINGS.en || {})[key];
    if (s === undefined) s = key;
    return s.replace(/\{(\w+)\}/g, function (m, name) {
      return vars && vars[name] !== undefined ? String(vars[name]) : m;
    });
  }

  /* A node whose words are one of the page's own strings: re-worded on a language switch. */
  function label(node, key, vars) {
    node.setAttribute("data-i18n", key);
    if (vars) node.setAttribute("data-i18n-vars", JSON.stringify(vars));
    else node.removeAttribute("data-i18n-vars");
    node.textContent = t(key, vars);
    return node;
  }

  function applyStrings() {
    document.documentElement.lang = state.locale;
    document.querySelectorAll("[data-i18n]").forEach(function (node) {
      var raw = node.getAttribute("data-i18n-vars");
      var vars = raw ? JSON.parse(raw) : undefined;
      if (vars && vars.status_key) vars.status = t(vars.status_key);
      node.textContent = t(node.getAttribute("data-i18n"), vars);
    });
    document.querySelectorAll("[data-i18n-placeholder]").forEach(function (node) {
      node.setAttribute("placeholder", t(node.getAttribute("data-i18n-placeholder")));
    });
    document.title = t("title");
  }

  function cardSelector(id) {
    return '[data-interaction-id="' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]';
  }

  /* ---- HTTP ---------------------------------------------------------------------- */

  async function problemOf(resp) {
    var body = null;
    try { body = await resp.json(); } catch (e) { body = null; }
    if (!body || typeof body !== "object") body = {};
    return {
      status: body.status || resp.status,
      code: body.code || "http_" + resp.status,
      title: body.title || resp.statusText || t("problem"),
      detail: body.detail || body.title || t("problem"),
    };
  }

  function networkProblem() {
    return { status: 0, code: "network", title: t("problem"), detail: t("network") };
  }

  async function getJson(path) {
    var resp = await fetch(path, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!resp.ok) { var p = await problemOf(resp); p.httpStatus = resp.status; throw p; }
    return resp.json();
  }

  /* Server-sent events from a fetch response: yields {id, event, data}. */
  async function* readEvents(resp) {
    var reader = resp.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      var keep = buffer.endsWith("\r") ? "\r" : "";
      if (keep) buffer = buffer.slice(0, -1);
      buffer = buffer.replace(/\r\n|\r/g, "\n");
      var cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        var frame = parseFrame(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        if (frame) yield frame;
      }
      buffer += keep;
    }
  }

  function parseFrame(text) {
    var frame = { id: null, event: "message", data: [] };
    text.split("\n").forEach(function (line) {
      if (!line || line.charAt(0) === ":") return;
      var colon = line.indexOf(":");
      var field = colon < 0 ? line : line.slice(0, colon);
      var value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.charAt(0) === " ") value = value.slice(1);
      if (field === "id") frame.id = value;
      else if (field === "event") frame.event = value;
      else if (field === "data") frame.data.push(value);
    });
    if (!frame.data.length) return null;
    frame.data = frame.data.join("\n");
    return frame;
  }

  /* ---- rendering ----------------------------------------------------------------- */

  function blockText(block) {
    if (typeof block.text === "string") return block.text;
    if (block.receipt && typeof block.receipt.text === "string") return block.receipt.text;
    if (typeof block.prompt === "string") return block.prompt;
    return "";
  }

  function renderBlock(block) {
    var kind = block.kind || "unknown";
    var node;
    if (kind === "interaction") return renderCard(block);
    if (kind === "receipt") {
      node = el("div", "block block--receipt");
      node.appendChild(el("span", "receipt__check", "✓")).setAttribute("aria-hidden", "true");
      var body = node.appendChild(el("div", "receipt__body"));
      body.appendChild(label(el("span", "receipt__label"), "receipt"));
      body.appendChild(el("p", "block__text", blockText(block)));
      var ids = (block.receipt && block.receipt.event_ids) || block.event_ids || [];
      var small = body.appendChild(el("small", "receipt__events"));
      small.appendChild(label(el("span"), "events"));
      small.appendChild(document.createTextNode(" " + ids.join(", ")));
    } else if (kind === "notice") {
      node = el("div", "block block--notice");
      node.setAttribute("role", "note");
      node.appendChild(el("span", "notice__icon", "!")).setAttribute("aria-hidden", "true");
      var nb = node.appendChild(el("div", "notice__body"));
      nb.appendChild(el("p", "block__text", blockText(block)));
      if (block.code) nb.appendChild(el("small", "notice__code", block.code));
    } else if (kind === "answer") {
      node = el("div", "block block--answer");
      var topic = node.appendChild(label(el("span", "answer__topic"), "answer"));
      if (block.topic) topic.title = block.topic;
      node.appendChild(el("p", "block__text", blockText(block)));
    } else if (kind === "transition") {
      node = el("div", "block block--transition");
      node.appendChild(el("p", "block__text", blockText(block)));
    } else if (kind === "artifact") {
      node = el("figure", "block block--artifact");
      var cap = node.appendChild(el("figcaption", "artifact__name", block.name || ""));
      if (block.media_type) cap.appendChild(el("small", "artifact__type", " " + block.media_type));
      node.appendChild(el("pre", "block__text", blockText(block)));
    } else {
      node = el("div", "block block--other");
      node.appendChild(el("p", "block__text", blockText(block)));
    }
    node.setAttribute("data-kind", kind);
    return node;
  }

  function renderCard(block) {
    var card = el("fieldset", "block block--card card");
    card.setAttribute("data-kind", "interaction");
    card.setAttribute("data-interaction-id", block.interaction_id);
    card.setAttribute("data-card-kind", block.interaction_kind || "");
    card.setAttribute("data-status", "open");
    if (block.expected_revision !== null && block.expected_revision !== undefined) {
      card.setAttribute("data-expected-revision", String(block.expected_revision));
    }
    card.appendChild(el("legend", "card__prompt block__text", blockText(block)));
    var options = card.appendChild(el("div", "card__options"));
    (block.options || []).forEach(function (option) {
      var button = options.appendChild(el("button", "card__option", option.label));
      button.type = "button";
      button.setAttribute("data-option-id", option.id);
      button.addEventListener("click", function () { clickCard(card, button); });
    });
    var state_ = card.appendChild(el("p", "card__state"));
    state_.hidden = true;
    return card;
  }

  function optionLabel(card, optionId) {
    var found = null;
    card.querySelectorAll(".card__option").forEach(function (b) {
      if (b.getAttribute("data-option-id") === optionId) found = b.textContent;
    });
    return found;
  }

  /* Show a card's state: open (clickable), pending (clicked, waiting), resolved, or out of
     date (superseded, stale, withdrawn; or no longer found). */
  function setCardStatus(card, status, resolution) {
    var current = card.getAttribute("data-status");
    if (current !== "open" && current !== "pending" && status === "open") return;
    card.setAttribute("data-status", status);
    var line = card.querySelector(".card__state");
    var open = status === "open";
    card.querySelectorAll(".card__option").forEach(function (b) { b.disabled = !open; });
    card.classList.toggle("card--pending", status === "pending");
    card.classList.toggle("card--resolved", status === "resolved" || status === "declined");
    card.classList.toggle("card--stale", ["superseded", "stale", "withdrawn", "gone"].indexOf(status) >= 0);
    if (open) {
      card.querySelectorAll(".card__option").forEach(function (b) {
        b.classList.remove("card__option--chosen");
      });
    }
    if (open || status === "pending") { line.hidden = true; return; }
    line.hidden = false;
    /* The server says the card is resolved, not who chose: the same words in every tab. */
    if (status === "resolved") {
      var r = resolution || {};
      var optionId = r.option_id || r.option || null;
      var text = r.label || (optionId && optionLabel(card, optionId)) || r.value || r.free_value || null;
      card.querySelectorAll(".card__option").forEach(function (b) {
        b.classList.toggle("card__option--chosen", !!optionId && b.getAttribute("data-option-id") === optionId);
      });
      if (text) label(line, "resolved", { label: text });
      else label(line, "resolved_plain");
    } else if (status === "gone") {
      label(line, "card_not_open");
    } else {
      label(line, "out_of_date", { status: t("status_" + status), status_key: "status_" + status });
    }
  }

  function newTurn(userText, userKey, userVars) {
    var turn = el("article", "turn");
    if (userText !== null || userKey) {
      var msg = turn.appendChild(el("div", "msg msg--user"));
      msg.appendChild(label(el("span", "msg__who"), "you"));
      var p = msg.appendChild(el("p", "msg__text"));
      if (userKey) label(p, userKey, userVars);
      else p.textContent = userText;
    }
    var live = turn.appendChild(el("div", "live"));
    live.hidden = true;
    live.appendChild(label(el("span", "live__label"), "reading"));
    live.appendChild(el("span", "live__step"));
    var steps = turn.appendChild(el("details", "steps"));
    steps.hidden = true;
    steps.appendChild(el("summary", "steps__summary"));
    steps.appendChild(el("ol", "steps__list"));
    turn.appendChild(el("div", "blocks"));
    var empty = $("empty");
    if (empty) empty.remove();
    $("log").appendChild(turn);
    return turn;
  }

  function setTurnId(turn, turnId) {
    if (!turnId || turn.getAttribute("data-turn-id")) return;
    turn.setAttribute("data-turn-id", turnId);
    var link = turn.appendChild(el("a", "turn__inspect"));
    link.href = "/turns/" + encodeURIComponent(turnId);
    link.target = "_blank";
    link.rel = "noopener";
    label(link, "inspect");
  }

  function renderBlocks(turn, blocks) {
    if (turn.getAttribute("data-rendered") === "1") return;
    turn.setAttribute("data-rendered", "1");
    var holder = turn.querySelector(".blocks");
    blocks.forEach(function (block) { holder.appendChild(renderBlock(block)); });
    scrollDown();
  }

  function renderProblem(turn, problem) {
    var node = el("div", "block block--problem");
    node.setAttribute("role", "alert");
    node.setAttribute("data-code", problem.code);
    node.appendChild(el("strong", "problem__title", problem.title));
    node.appendChild(el("p", "block__text", problem.detail));
    node.appendChild(el("small", "problem__code", problem.code + (problem.status ? " · " + problem.status : "")));
    turn.appendChild(node);
    scrollDown();
  }

  function showStep(turn, event) {
    var live = turn.querySelector(".live");
    live.hidden = false;
    if (event.kind === "phase") {
      live.setAttribute("data-phase", event.phase);
      label(live.querySelector(".live__step"), "phase_" + event.phase);
      return;
    }
    var words = event.text || event.name || "";
    live.querySelector(".live__step").textContent = words;
    var steps = turn.querySelector(".steps");
    var item = steps.querySelector(".steps__list").appendChild(el("li", "step", words));
    if (event.detail) item.title = event.detail;
    var n = steps.querySelectorAll(".step").length;
    label(steps.querySelector(".steps__summary"), n === 1 ? "steps_summary_one" : "steps_summary", { n: n });
  }

  function endLive(turn) {
    turn.querySelector(".live").hidden = true;
    var steps = turn.querySelector(".steps");
    steps.hidden = steps.querySelectorAll(".step").length === 0;
  }

  function scrollDown() {
    var log = $("log");
    log.scrollTop = log.scrollHeight;
  }

  function localNotice(key, vars) {
    var box = $("local-notice");
    if (!key) { box.hidden = true; box.textContent = ""; return; }
    box.hidden = false;
    label(box, key, vars);
  }

  function showStatus(key) {
    var box = $("status");
    if (!key) { box.hidden = true; return; }
    box.hidden = false;
    label(box, key);
  }

  /* ---- turns --------------------------------------------------------------------- */

  function setBusy(busy) {
    state.busy = busy;
    $("send").disabled = busy;
    document.querySelectorAll(".chip").forEach(function (c) { c.disabled = busy; });
    document.body.classList.toggle("is-busy", busy);
  }

  function remember(turnId, entry) {
    try { localStorage.setItem("turnframe:said:" + turnId, JSON.stringify(entry)); } catch (e) { /* private mode */ }
  }

  function recalled(turnId) {
    try { return JSON.parse(localStorage.getItem("turnframe:said:" + turnId) || "null"); } catch (e) { return null; }
  }

  /* What the user sent in a reloaded turn: the view's own input (the text, or the clicked
     option's label), so another browser shows the same words; this browser's note of it
     only when the view has none (docs/web-chat.md "Reload"). */
  function saidFrom(entry) {
    var input = entry.input;
    var noted = recalled(entry.turn_id) || {};
    if (input && typeof input.text === "string") return { text: input.text };
    if (input && input.click) {
      var shown = input.click.label
        || (noted.vars && noted.vars.label)
        || input.click.option_id;
      return { key: "you_clicked", vars: { label: shown } };
    }
    return noted;
  }

  /* Run one turn: POST it as an event stream; resume with Last-Event-ID if the stream breaks
     (an unanswered POST is retried with the same Idempotency-Key: never a second turn). */
  async function sendTurn(payload, said) {
    setBusy(true);
    localNotice(null);
    var turn = newTurn(said.text !== undefined ? said.text : null, said.key, said.vars);
    var live = turn.querySelector(".live");
    live.hidden = false;
    var body = JSON.stringify(Object.assign({}, payload, { locale: state.locale }));
    var key = uuid();
    var turnId = null;
    var lastId = 0;
    var done = false;
    var csrfRetried = false;
    try {
      for (var attempt = 0; !done && attempt < MAX_ATTEMPTS; attempt++) {
        if (attempt > 0) { showStatus("reconnecting"); await sleep(300 * attempt); }
        var resp;
        try {
          if (turnId === null) {
            resp = await fetch("/v1/conversations/" + encodeURIComponent(state.conversationId) + "/turns", {
              method: "POST",
              credentials: "same-origin",
              headers: {
                "Accept": "text/event-stream",
                "Content-Type": "application/json",
                "Idempotency-Key": key,
                "X-CSRF-Token": state.session.csrf_token,
              },
              body: body,
            });
          } else {
            resp = await fetch("/v1/turns/" + encodeURIComponent(turnId) + "/events", {
              credentials: "same-origin",
              headers: { "Accept": "text/event-stream", "Last-Event-ID": String(lastId) },
            });
          }
        } catch (e) {
          continue;
        }
        if (!resp.ok) {
          var problem = await problemOf(resp);
          if (problem.code === "csrf_failed" && !csrfRetried) {
            csrfRetried = true;
            state.session = await getJson("/v1/session");
            attempt--;
            continue;
          }
          renderProblem(turn, problem);
          done = true;
          break;
        }
        var type = resp.headers.get("Content-Type") || "";
        if (type.indexOf("text/event-stream") < 0) {
          var view = await resp.json();
          setTurnId(turn, view.turn_id);
          renderBlocks(turn, view.blocks || []);
          done = true;
          break;
        }
        try {
          for await (var frame of readEvents(resp)) {
            if (frame.id !== null && /^\d+$/.test(frame.id)) lastId = Math.max(lastId, Number(frame.id));
            var data = JSON.parse(frame.data);
            if (data && data.turn_id && turnId === null) { turnId = data.turn_id; setTurnId(turn, turnId); }
            if (frame.event === "step" || frame.event === "phase") {
              showStep(turn, data);
            } else if (frame.event === "blocks") {
              renderBlocks(turn, data.blocks || []);
            } else if (frame.event === "finished") {
              if (data.blocks) renderBlocks(turn, data.blocks);
              done = true;
            } else if (frame.event === "error") {
              renderProblem(turn, {
                status: data.status, code: data.code || "error",
                title: data.title || t("problem"), detail: data.detail || t("problem"),
              });
              done = true;
            }
          }
        } catch (e) {
          /* the stream broke: resume below */
        }
        showStatus(null);
      }
      if (!done) renderProblem(turn, { status: 0, code: "stream_lost", title: t("problem"), detail: t("gave_up") });
    } finally {
      endLive(turn);
      showStatus(null);
      var id = turn.getAttribute("data-turn-id");
      if (id) remember(id, said);
      await refreshCards();
      setBusy(false);
    }
    return turn;
  }

  function clickCard(card, button) {
    if (state.busy || card.getAttribute("data-status") !== "open") return;
    var click = {
      interaction_id: card.getAttribute("data-interaction-id"),
      option_id: button.getAttribute("data-option-id"),
      expected_revision: card.hasAttribute("data-expected-revision")
        ? Number(card.getAttribute("data-expected-revision")) : null,
    };
    setCardStatus(card, "pending");
    button.classList.add("card__option--chosen");
    return sendTurn({ click: click }, { key: "you_clicked", vars: { label: button.textContent } });
  }

  function sendText(text) {
    text = text.trim();
    if (!text || state.busy) return null;
    var n = utf8Length(text);
    if (n > state.session.max_message_bytes) {
      localNotice("too_long", { n: n, max: state.session.max_message_bytes });
      return null;
    }
    $("message").value = "";
    return sendTurn({ text: text }, { text: text });
  }

  /* After each turn (and when the tab is shown again): cards that are no longer open are
     shown resolved or out of date, from the server's own record of them. */
  async function refreshCards() {
    var cards = document.querySelectorAll(".card");
    if (!cards.length) return;
    var open;
    try {
      var view = await getJson("/v1/conversations/" + encodeURIComponent(state.conversationId) + "/cards");
      open = new Set((view.cards || []).map(function (c) { return c.interaction_id; }));
    } catch (e) {
      return;
    }
    var seen = new Map();
    for (var i = 0; i < cards.length; i++) {
      var card = cards[i];
      var id = card.getAttribute("data-interaction-id");
      var status = card.getAttribute("data-status");
      if (open.has(id)) { setCardStatus(card, "open"); continue; }
      if (status !== "open" && status !== "pending") continue;
      if (!seen.has(id)) {
        try { seen.set(id, await getJson("/v1/cards/" + encodeURIComponent(id) +
          "?conversation_id=" + encodeURIComponent(state.conversationId))); }
        catch (e) { seen.set(id, e && e.httpStatus === 404 ? { status: "gone" } : null); }
      }
      var found = seen.get(id);
      if (found) setCardStatus(card, found.status, found.resolution);
    }
  }

  /* ---- start-up ------------------------------------------------------------------ */

  function chooseLocale(locales, fallback) {
    var wanted = new URLSearchParams(location.search).get("lang");
    try { wanted = wanted || localStorage.getItem("turnframe:locale"); } catch (e) { /* none */ }
    if (wanted && locales.indexOf(wanted) >= 0) return wanted;
    return fallback || locales[0] || "en";
  }

  function setupLanguage() {
    var select = $("lang");
    var locales = state.session.locales && state.session.locales.length ? state.session.locales : ["en"];
    locales.forEach(function (code) {
      var option = select.appendChild(el("option", null, LOCALE_NAMES[code] || code));
      option.value = code;
    });
    state.locale = chooseLocale(locales, state.session.default_locale);
    select.value = state.locale;
    select.addEventListener("change", function () {
      state.locale = select.value;
      try { localStorage.setItem("turnframe:locale", state.locale); } catch (e) { /* none */ }
      applyStrings();
    });
  }

  function setupSuggestions() {
    var list = state.session.suggestions || [];
    if (!list.length) return;
    $("suggestions").hidden = false;
    var chips = $("chips");
    list.forEach(function (text) {
      var chip = chips.appendChild(el("button", "chip", text));
      chip.type = "button";
      chip.addEventListener("click", function () {
        if (state.busy) return;
        chip.classList.add("chip--used");
        sendText(text);
      });
    });
  }

  function conversationFromUrl() {
    var params = new URLSearchParams(location.search);
    var id = params.get("c");
    if (id) return { id: id, fresh: false };
    id = uuid();
    params.set("c", id);
    history.replaceState(null, "", location.pathname + "?" + params.toString());
    return { id: id, fresh: true };
  }

  async function loadConversation(fresh) {
    if (fresh) return;
    var view;
    try {
      view = await getJson("/v1/conversations/" + encodeURIComponent(state.conversationId));
    } catch (p) {
      if (p && p.httpStatus === 404) return;
      renderProblem(newTurn(null), p && p.code ? p : networkProblem());
      return;
    }
    (view.turns || []).forEach(function (entry) {
      var said = saidFrom(entry);
      var turn = newTurn(said.text !== undefined ? said.text : null, said.key, said.vars);
      setTurnId(turn, entry.turn_id);
      renderBlocks(turn, entry.blocks || []);
      endLive(turn);
    });
    await refreshCards();
  }

  async function start() {
    var log = $("log");
    try {
      state.session = await getJson("/v1/session");
    } catch (p) {
      var turn = newTurn(null);
      renderProblem(turn, p && p.code ? p : networkProblem());
      return;
    }
    var actor = state.session.actor || {};
    setupLanguage();
    label($("who"), "you_as", { user: actor.user || "", account: actor.account || "" });
    var conversation = conversationFromUrl();
    state.conversationId = conversation.id;
    document.body.setAttribute("data-conversation-id", conversation.id);
    var empty = el("p", "log__empty");
    empty.id = "empty";
    label(empty, "empty");
    log.appendChild(empty);
    setupSuggestions();
    applyStrings();
    await loadConversation(conversation.fresh);
    $("composer").addEventListener("submit", function (e) {
      e.preventDefault();
      sendText($("message").value);
    });
    $("message").addEventListener("keydown", function (e) {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        sendText($("message").value);
      }
    });
    $("message").addEventListener("input", function () { localNotice(null); });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible" && !state.busy) refreshCards();
    });
    window.addEventListener("focus", function () { if (!state.busy) refreshCards(); });
    document.body.setAttribute("data-ready", "1");
  }

  /* A structured click sent exactly as a card's button sends it (for embedding and tests). */
  function sendClick(click, optionLabel) {
    if (state.busy) return null;
    return sendTurn({ click: click }, { key: "you_clicked", vars: { label: optionLabel || click.option_id } });
  }

  window.TurnframeChat = { sendText: sendText, sendClick: sendClick, refreshCards: refreshCards, state: state };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
