/* Turnframe turn inspector (docs/inspector.md). Plain JavaScript, no build step, no
   external URL. Reads the turn id from location.pathname (/turns/{turn_id}), fetches
   GET /v1/turns/{turn_id}/inspection and renders it; the Replay button posts
   /v1/turns/{turn_id}/replay with the session's CSRF token. Every value from the server
   is written with textContent (never parsed as HTML). */
(function () {
  "use strict";

  /* Every word the page shows, in one place (English: a developer tool). */
  var T = {
    title: "Turn inspector",
    loading: "Loading…",
    turn: "turn",
    conversation: "conversation",
    phase: "phase",
    kind: "kind",
    noTurnId: "This address names no turn: the inspector lives at /turns/{turn_id}.",
    network: "The server could not be reached.",
    notJson: "The server's answer was not JSON.",
    noText: "(no text: this turn was a click)",
    clickAnswered: "Answered card",
    clickOn: "Click on card",
    clickOption: "option",
    clickNotFound: "The card is not one of this conversation's (unknown or foreign id): nothing ran.",
    clickStatus: "card status now",
    cardTurn: "shown by turn",
    clickWords: "The words are in the message of the turn that showed the card: ",
    source: { message: "from the message", click: "from the clicked card", waiting: "carried from an earlier reply" },
    steps: {
      words: "Evidence words",
      resolution: "Target resolution",
      result: "Result",
      commands: "Command envelope",
      events: "Committed events",
      receipts: "Receipts"
    },
    none: "—",
    noneRecorded: "none",
    wordSource: { target: "names the record", value: "its value (no evidence recorded)", evidence: "" },
    match: { pointer: "model's pointer", exact: "verbatim", loose: "loosely", absent: "not in the message" },
    handles: "handles",
    mention: "mention",
    find: "find",
    creates: "creates a new record",
    status: "status",
    case: "case",
    candidates: "candidates",
    reason: "reason",
    recordArgs: "record arguments",
    badArgs: "unreadable arguments",
    code: "code",
    sentence: "sentence",
    interaction: "waits on card",
    asks: "asks for",
    operation: "operation",
    origin: "origin",
    expectedRevision: "expected revision",
    idempotencyKey: "idempotency key",
    arguments: "arguments",
    risk: "risk",
    journal: "journal",
    journalNone: "not journaled",
    journalRow: function (j) { return "revision " + j.revision + " · events " + (j.event_ids.join(", ") || T.none); },
    eventCols: ["id", "type", "case", "revision", "operation"],
    topic: "topic",
    basis: "basis",
    answer: "answer",
    item: "item",
    why: "why",
    options: "options",
    effort: "effort",
    merge: "merged read",
    calls: "calls",
    tokens: "tokens",
    repairs: "repairs",
    votes: "votes",
    voteCols: ["task", "reads", "distinct", "collapsed", "failed"],
    readingSteps: "reading steps",
    units: "units",
    readingError: "reading ended by",
    stepErrors: "step errors",
    noCalls: "No model call: a click, a scripted understanding or an empty message.",
    prompt: "prompt",
    response: "response",
    forAct: "for",
    latency: "ms",
    plan: "recorded plan (JSON)",
    notReduced: "No reduction is recorded for this turn.",
    summary: {
      today: "today", locale: "locale", acts: "acts", snapshots: "snapshots (case @ revision)",
      cards_on_screen: "cards on screen", click: "click", standing_do_not_submit: "standing “do not submit”",
      waiting: "waiting acts", linked_cards: "linked cards"
    },
    replay: "Replay",
    replaying: "Replaying…",
    identical: "Identical plan: the reducer returns the recorded plan from the recorded input.",
    different: function (n) { return "The replayed plan differs in " + n + (n === 1 ? " place." : " places."); },
    unavailable: "Nothing to replay: ",
    diffCols: ["path", "change", "recorded", "replayed"],
    problem: "Error",
    yes: "yes",
    no: "no"
  };

  function $(id) { return document.getElementById(id); }

  /* el("tag", {class, id, data-*, title, ...}, children...): text children via textContent. */
  function el(tag, attrs) {
    var node = document.createElement(tag);
    var key;
    for (key in attrs || {}) {
      if (Object.prototype.hasOwnProperty.call(attrs, key) && attrs[key] !== null && attrs[key] !== undefined) {
        if (key === "class") { node.className = attrs[key]; } else { node.setAttribute(key, String(attrs[key])); }
      }
    }
    for (var i = 2; i < arguments.length; i++) { add(node, arguments[i]); }
    return node;
  }

  function add(node, child) {
    if (child === null || child === undefined || child === false) { return; }
    if (Array.isArray(child)) { child.forEach(function (c) { add(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }

  function json(value) { return JSON.stringify(value, null, 1); }

  function show(sectionId) { $(sectionId).hidden = false; }

  function dl(pairs) {
    var list = el("dl", { class: "pairs" });
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "" || (Array.isArray(p[1]) && !p[1].length)) { return; }
      list.appendChild(el("dt", null, p[0]));
      list.appendChild(el("dd", null, p[1]));
    });
    return list.children.length ? list : el("p", { class: "empty" }, T.none);
  }

  function table(cls, cols, rows) {
    return el("table", { class: cls },
      el("thead", null, el("tr", null, cols.map(function (c) { return el("th", { scope: "col" }, c); }))),
      el("tbody", null, rows.map(function (r) { return el("tr", null, r.map(function (c) { return el("td", null, c); })); })));
  }

  function code(value) { return el("code", null, typeof value === "string" ? value : json(value)); }

  /* ------------------------------------------------------------------ problems */
  function Problem(status, body) {
    this.status = status;
    this.body = body && typeof body === "object" ? body : null;
  }

  /* The readable nodes of an error: a problem-details body's title, status, code, detail. */
  function problemNodes(error) {
    if (error instanceof Problem && error.body) {
      var b = error.body;
      return [el("strong", null, (b.title || T.problem) + " (" + (b.status || error.status) + ")"), " ",
        b.code ? el("code", { class: "problem-code" }, b.code) : null,
        b.detail ? el("p", { class: "problem-detail" }, b.detail) : null];
    }
    if (error instanceof Problem) { return [el("strong", null, T.problem + " (" + error.status + ") " + T.notJson)]; }
    return [el("strong", null, error && error.message ? error.message : T.network)];
  }

  function showProblem(error) {
    var box = $("error");
    box.textContent = "";
    add(box, problemNodes(error));
    box.hidden = false;
  }

  function fetchJSON(url, init) {
    var options = init || {};
    options.credentials = "same-origin";
    options.headers = Object.assign({ Accept: "application/json" }, options.headers || {});
    return fetch(url, options).then(function (response) {
      return response.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
        if (!response.ok) { throw new Problem(response.status, body); }
        if (body === null) { throw new Problem(response.status, null); }
        return body;
      });
    }, function () { throw new Error(T.network); });
  }

  /* ------------------------------------------------------------------ message */
  /* Offsets are code points (Python string indices): slice the text as code points. */
  function highlighted(text, spans) {
    var chars = Array.from(text);
    var found = spans.filter(function (s) {
      return typeof s.start === "number" && typeof s.end === "number" && s.start < s.end && s.end <= chars.length;
    });
    var cuts = [0, chars.length];
    found.forEach(function (s) { cuts.push(s.start, s.end); });
    cuts = cuts.filter(function (c, i) { return cuts.indexOf(c) === i; }).sort(function (a, b) { return a - b; });
    var frag = document.createDocumentFragment();
    for (var i = 0; i + 1 < cuts.length; i++) {
      var a = cuts[i], b = cuts[i + 1];
      var piece = chars.slice(a, b).join("");
      var covering = found.filter(function (s) { return s.start <= a && s.end >= b; });
      if (!covering.length) { frag.appendChild(document.createTextNode(piece)); continue; }
      var acts = covering.map(function (s) { return s.act; }).filter(function (x, k, all) { return all.indexOf(x) === k; });
      var mark = el("mark", {
        class: "evidence" + (acts.length > 1 ? " overlap" : ""),
        "data-act": acts[0],
        "data-acts": acts.join(" "),
        "data-arguments": covering.map(function (s) { return s.argument; }).join(" "),
        title: covering.map(function (s) { return s.act + " · " + s.argument; }).join("; ")
      }, piece);
      mark.addEventListener("click", jumpTo(acts[0]));
      frag.appendChild(mark);
    }
    return frag;
  }

  function jumpTo(actId) {
    return function () {
      var target = document.querySelector('.act[data-act="' + CSS.escape(actId) + '"]');
      if (target) { target.scrollIntoView({ behavior: "smooth", block: "start" }); target.classList.add("flash"); setTimeout(function () { target.classList.remove("flash"); }, 900); }
    };
  }

  function renderMessage(view) {
    var p = $("message");
    p.textContent = "";
    if (view.message.text) { p.appendChild(highlighted(view.message.text, view.message.evidence || [])); } else { p.classList.add("empty"); p.textContent = T.noText; }
    if (view.click) {
      var c = view.click, box = $("click");
      box.textContent = "";
      if (c.found) {
        add(box, [el("strong", null, (c.status === "resolved" ? T.clickAnswered : T.clickOn) + " "), code(c.interaction_id),
          c.interaction_kind ? el("span", { class: "tag" }, c.interaction_kind) : null,
          c.prompt ? el("q", { class: "card-prompt" }, c.prompt) : null, " → ", T.clickOption + " ",
          code(c.option_id), c.option_label ? el("span", { class: "option-label" }, " “" + c.option_label + "”") : null,
          dl([[T.expectedRevision, c.expected_revision === null ? null : String(c.expected_revision)],
            [T.case, c.case], [T.clickStatus, c.status], ["value", c.value],
            [T.cardTurn, c.card_turn_id ? turnLink(c.card_turn_id) : null]])]);
      } else {
        add(box, [el("strong", null, T.clickOn + " "), code(c.interaction_id), " → ", code(c.option_id), el("p", null, T.clickNotFound)]);
      }
      box.hidden = false;
    }
    show("message-section");
  }

  /* --------------------------------------------------------------------- acts */
  function step(cls, title, body) {
    return el("li", { class: "step " + cls }, el("h4", null, title), body);
  }

  function turnLink(id) {
    return el("a", { class: "turn-link", href: "/turns/" + encodeURIComponent(id) }, id);
  }

  function wordsOf(act, view) {
    if (!act.evidence.length && act.source === "click" && view.click && view.click.card_turn_id) {
      return el("p", { class: "empty" }, T.clickWords, turnLink(view.click.card_turn_id));
    }
    if (!act.evidence.length) { return el("p", { class: "empty" }, T.noneRecorded); }
    return el("ul", { class: "words" }, act.evidence.map(function (s) {
      return el("li", { "data-match": s.match, "data-source": s.source }, el("span", { class: "argument" }, s.argument), ": ",
        el("mark", { class: "evidence-word", "data-act": s.act }, s.words), " ",
        el("span", { class: "tag" }, T.match[s.match] || s.match),
        T.wordSource[s.source] ? el("span", { class: "tag" }, T.wordSource[s.source]) : null,
        s.start !== null ? el("span", { class: "meta" }, " [" + s.start + "–" + s.end + ")") : null);
    }));
  }

  function resolutionOf(r) {
    if (!r) { return el("p", { class: "empty" }, T.none); }
    return el("div", null,
      dl([[T.handles, r.handles.join(", ")], [T.mention, r.mention], [T.find, r.find], [T.creates, r.new ? T.yes : null],
        [T.status, r.status ? el("span", { class: "status status-" + r.status }, r.status) : null], [T.case, r.case], [T.reason, r.reason],
        [T.recordArgs, Object.keys(r.record_args).map(function (k) { return k + " → " + r.record_args[k]; }).join(", ")],
        [T.badArgs, Object.keys(r.bad_args).map(function (k) { return k + ": " + r.bad_args[k]; }).join(", ")]]),
      r.candidates.length ? el("ol", { class: "candidates" }, r.candidates.map(function (c) {
        return el("li", null, el("span", { class: "label" }, c.label), " ", code(c.case));
      })) : null);
  }

  function resultOf(r) {
    if (!r) { return el("p", { class: "empty" }, T.none); }
    return dl([[T.status, el("span", { class: "status status-" + r.status }, r.label)], [T.code, r.code], [T.sentence, r.sentence],
      [T.operation, r.operation], [T.case, r.case], [T.interaction, r.interaction_id], [T.asks, r.asks]]);
  }

  function commandsOf(commands) {
    if (!commands.length) { return el("p", { class: "empty" }, T.noneRecorded); }
    return el("div", null, commands.map(function (c) {
      return el("div", { class: "envelope" }, dl([[T.operation, c.operation], [T.case, c.case],
        [T.origin, code(c.origin)], [T.expectedRevision, String(c.expected_revision)],
        [T.idempotencyKey, el("code", { class: "key" }, c.idempotency_key)], [T.risk, c.risk],
        [T.arguments, code(c.arguments)], [T.journal, c.journal ? T.journalRow(c.journal) : T.journalNone]]));
    }));
  }

  function eventsOf(events) {
    if (!events.length) { return el("p", { class: "empty" }, T.noneRecorded); }
    return table("events", T.eventCols, events.map(function (e) { return [code(e.id), e.type, e.case, String(e.revision), e.operation]; }));
  }

  function receiptsOf(receipts) {
    if (!receipts.length) { return el("p", { class: "empty" }, T.noneRecorded); }
    return el("div", null, receipts.map(function (r) {
      return el("div", { class: "receipt" }, el("span", { class: "receipt-text" }, r.text), " ",
        el("span", { class: "meta" }, r.event_ids.join(", ")));
    }));
  }

  function renderActs(view) {
    var box = $("acts");
    box.textContent = "";
    if (!view.acts.length) { box.appendChild(el("p", { class: "empty" }, T.noneRecorded)); }
    view.acts.forEach(function (act) {
      box.appendChild(el("article", { class: "act", id: "act-" + act.id, "data-act": act.id },
        el("h3", null, code(act.id), " ", act.operation || "—", " ", el("span", { class: "tag source" }, T.source[act.source] || act.source),
          act.summary ? el("span", { class: "summary" }, " " + act.summary) : null,
          act.hypothetical ? el("span", { class: "tag" }, "hypothetical") : null),
        el("ol", { class: "chain" },
          step("words", T.steps.words, wordsOf(act, view)),
          step("resolution", T.steps.resolution, resolutionOf(act.resolution)),
          step("result", T.steps.result, resultOf(act.result)),
          step("commands", T.steps.commands, commandsOf(act.commands)),
          step("events", T.steps.events, eventsOf(act.events)),
          step("receipts", T.steps.receipts, receiptsOf(act.receipts)))));
    });
    show("acts-section");
  }

  /* ----------------------------------------------------- questions, notices, cards */
  function renderQuestions(view) {
    if (!view.questions.length) { return; }
    $("questions").appendChild(el("div", null, view.questions.map(function (q) {
      return el("article", { class: "question", "data-question": q.id }, el("h3", null, code(q.id), " ", q.topic),
        dl([[T.basis, q.basis], [T.status, q.result ? q.result.label : null], [T.answer, q.answer]]));
    })));
    show("questions-section");
  }

  function renderNotices(view) {
    if (!view.notices.length) { return; }
    $("notices").appendChild(el("div", null, view.notices.map(function (n) {
      return el("div", { class: "notice", "data-code": n.code }, el("p", null, n.text),
        dl([[T.code, code(n.code)], [T.item, n.item_id], [T.why, n.why]]));
    })));
    show("notices-section");
  }

  function renderCards(view) {
    if (!view.cards.length) { return; }
    $("cards").appendChild(el("div", null, view.cards.map(function (c) {
      return el("div", { class: "card", "data-interaction": c.interaction_id }, el("p", null, el("span", { class: "tag" }, c.interaction_kind), " ", c.prompt),
        el("ul", { class: "options" }, c.options.map(function (o) { return el("li", null, o.label, " ", code(o.id)); })),
        el("p", { class: "meta" }, c.interaction_id + (c.expected_revision === null ? "" : " @ " + c.expected_revision)));
    })));
    show("cards-section");
  }

  /* ---------------------------------------------------------------- model calls */
  function renderModel(view) {
    var m = view.model, box = $("model");
    box.appendChild(dl([[T.effort, m.effort], [T.merge, m.merge], [T.calls, String(m.calls.length)],
      [T.tokens, m.prompt_tokens + " + " + m.completion_tokens], [T.repairs, String(m.repairs)], [T.readingError, m.error],
      [T.units, m.units.map(function (u) { return u.id + ":" + u.kind + " " + u.from + "–" + u.to; }).join(", ")]]));
    if (m.steps.length) {
      box.appendChild(el("details", { class: "steps" }, el("summary", null, T.readingSteps + " (" + m.steps.length + ")"),
        el("ol", null, m.steps.map(function (s) { return el("li", null, el("strong", null, s[0]), " ", s[1] || ""); }))));
    }
    if (m.votes.length) {
      box.appendChild(el("h3", null, T.votes));
      box.appendChild(table("votes", T.voteCols, m.votes.map(function (v) { return T.voteCols.map(function (k) { return String(v[k]); }); })));
    }
    if (m.errors.length) {
      box.appendChild(el("h3", null, T.stepErrors));
      box.appendChild(el("ul", { class: "step-errors" }, m.errors.map(function (e) { return el("li", null, el("strong", null, e.step), ": ", e.error); })));
    }
    if (!m.calls.length) { box.appendChild(el("p", { class: "empty" }, T.noCalls)); }
    m.calls.forEach(function (c) {
      var ok = c.verdict === "ok";
      box.appendChild(el("details", { class: "call" + (ok ? "" : " failed"), "data-task": c.task, "data-index": c.index },
        el("summary", null, "#" + c.index + " ", el("strong", null, c.task), " · " + c.attempt + " · ",
          el("span", { class: "verdict" }, c.verdict), " · " + (c.model || T.none) + " · " + c.prompt_tokens + "+" + c.completion_tokens + " " + T.tokens +
          " · " + c.latency_ms + " " + T.latency + (c.for_act ? " · " + T.forAct + " " + c.for_act : "")),
        el("div", { class: "call-body" }, c.prompt_id ? el("p", { class: "meta" }, c.prompt_id) : null,
          c.prompt.map(function (msg) { return [el("h4", null, T.prompt + " · " + msg.role), el("pre", { class: "prompt" }, msg.content)]; }),
          el("h4", null, T.response), el("pre", { class: "response" }, c.response === null ? T.none : c.response))));
    });
    show("model-section");
  }

  /* ------------------------------------------------------------------ reduction */
  function renderReduction(view) {
    var r = view.reduction, box = $("reduction");
    if (!r.recorded) {
      box.appendChild(el("p", { class: "empty" }, T.notReduced));
    } else {
      var s = r.summary || {};
      box.appendChild(dl([[T.summary.today, s.today], [T.summary.locale, s.locale], [T.summary.acts, (s.acts || []).join(", ")],
        [T.summary.snapshots, (s.snapshots || []).map(function (x) { return x.case + " @ " + x.revision; }).join(", ")],
        [T.summary.cards_on_screen, (s.cards_on_screen || []).join(", ")], [T.summary.click, s.click ? code(s.click) : null],
        [T.summary.standing_do_not_submit, s.standing_do_not_submit ? T.yes : T.no], [T.summary.waiting, (s.waiting || []).join(", ")],
        [T.summary.linked_cards, (s.linked_cards || []).join(", ")]]));
      box.appendChild(el("details", { class: "plan" }, el("summary", null, T.plan), el("pre", { id: "plan" }, json(r.plan))));
    }
    show("reduction-section");
  }

  function renderNotes(view) {
    if (!view.notes.length) { return; }
    view.notes.forEach(function (n) { $("notes").appendChild(el("li", null, n)); });
    show("notes-section");
  }

  /* --------------------------------------------------------------------- replay */
  function replay(turnId) {
    var button = $("replay"), out = $("replay-result"), status = $("replay-status");
    button.disabled = true;
    status.textContent = T.replaying;
    out.textContent = "";
    out.removeAttribute("data-same");
    fetchJSON("/v1/session").then(function (session) {
      return fetchJSON("/v1/turns/" + encodeURIComponent(turnId) + "/replay", {
        method: "POST",
        headers: { "X-CSRF-Token": session.csrf_token, "Content-Type": "application/json" },
        body: "{}"
      });
    }).then(function (view) {
      out.setAttribute("data-same", String(view.same));
      if (view.same === true) {
        out.appendChild(el("p", { class: "identical" }, T.identical));
      } else if (view.same === false) {
        out.appendChild(el("p", { class: "different" }, T.different(view.diff.length)));
        out.appendChild(table("diff", T.diffCols, view.diff.map(function (d) {
          return [el("code", { class: "path" }, d.path), d.change, code(d.recorded), code(d.replayed)];
        })));
      } else {
        out.appendChild(el("p", { class: "unavailable" }, T.unavailable + (view.reason || "")));
      }
    }).catch(function (error) {
      out.setAttribute("data-same", "error");
      out.appendChild(el("div", { class: "problem", role: "alert" }, problemNodes(error)));
    }).then(function () {
      status.textContent = "";
      button.disabled = false;
    });
  }

  /* ----------------------------------------------------------------------- main */
  function turnIdFromPath() {
    var m = /^\/turns\/([^/]+)\/?$/.exec(location.pathname);
    if (!m) { return null; }
    try { return decodeURIComponent(m[1]); } catch (e) { return null; }
  }

  function finish(state) {
    document.body.setAttribute("data-state", state);
    $("inspector").setAttribute("aria-busy", "false");
  }

  function main() {
    document.body.setAttribute("data-state", "loading");
    var turnId = turnIdFromPath();
    var meta = $("turn-meta");
    if (!turnId) {
      meta.textContent = "";
      showProblem(new Error(T.noTurnId));
      finish("error");
      return;
    }
    document.title = T.title + " · " + turnId;
    fetchJSON("/v1/turns/" + encodeURIComponent(turnId) + "/inspection").then(function (view) {
      meta.textContent = "";
      add(meta, [T.turn + " ", code(view.turn_id), " · " + T.conversation + " ", code(view.conversation_id),
        " · " + T.phase + " " + view.phase + " · " + T.kind + " " + view.kind]);
      renderMessage(view);
      renderActs(view);
      renderQuestions(view);
      renderNotices(view);
      renderCards(view);
      renderModel(view);
      renderReduction(view);
      renderNotes(view);
      $("replay").addEventListener("click", function () { replay(turnId); });
      finish("ready");
    }).catch(function (error) {
      meta.textContent = T.turn + " " + turnId;
      showProblem(error);
      finish("error");
    });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", main); } else { main(); }
}());
