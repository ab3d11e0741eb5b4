"""The web chat in a real Chromium against a real ``turnframe serve`` (docs/web-chat.md).

Each test runs the travel tour's messages through the page as a person would (chips,
the composer, cards' buttons) and checks what the page shows against what the server
committed: receipts' event ids are the store's events, one click is one effect, a reload
shows the same blocks, a card that is no longer open is shown so and does nothing,
another account's card is not found and nothing runs.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

from browser_kit import (
    Browser,
    Server,
    blocks_snapshot,
    click_option,
    last_card,
    last_turn,
    open_chat,
    screenshot,
    wait_turns,
)

MULTI = "Put Rui on the Porto trip, 2 to 6 July. And what's the bag allowance on the TP manifest?"
SEAT = "Add a seat to the Lisbon trip."
HOTEL = "Book Hotel Avenida for 3 nights in June."
JUNE = "3–6 June"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

# Records, as the page saw them streaming: each phase, each step's words, and the moment
# the blocks appeared.
OBSERVE = """() => {
  window.__seen = [];
  const log = document.getElementById('log');
  new MutationObserver(records => {
    for (const r of records) {
      const t = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (r.type === 'attributes' && r.attributeName === 'data-phase') {
        window.__seen.push('phase:' + t.getAttribute('data-phase'));
      }
      if (r.type === 'childList' && t.classList.contains('blocks') && r.addedNodes.length) {
        window.__seen.push('blocks');
      }
      if (r.type === 'childList' && t.classList.contains('steps__list')) {
        window.__seen.push('step');
      }
    }
  }).observe(log, {subtree: true, childList: true, attributes: true,
                   attributeFilter: ['data-phase']});
}"""


def conversation_of(page: Any) -> str:
    """The conversation id the page keeps in its address."""
    return parse_qs(urlparse(page.url).query)["c"][0]


def turn_ids(page: Any) -> list[str]:
    return [
        str(t)
        for t in page.eval_on_selector_all(
            "article.turn", "ts => ts.map(t => t.getAttribute('data-turn-id'))"
        )
    ]


def operations_of(server: Server, turn_id: str) -> list[str]:
    rows = server.query("SELECT operation FROM events WHERE turn_id = ? ORDER BY pos", turn_id)
    return [str(r[0]) for r in rows]


def count_operation(server: Server, operation: str) -> int:
    return int(server.query("SELECT COUNT(*) FROM events WHERE operation = ?", operation)[0][0])


def chip(page: Any, text: str) -> Any:
    """Send a tour message by clicking its suggestion chip; wait; return the turn."""
    before = int(page.evaluate("document.querySelectorAll('article.turn').length"))
    page.locator(".chip", has_text=text).first.click()
    wait_turns(page, before + 1)
    return last_turn(page)


def test_a_multi_act_message_streams_and_renders_typed_blocks(
    server: Server, browser: Browser
) -> None:
    page = open_chat(browser.page(), server.url + "/")
    conversation = conversation_of(page)
    assert UUID.match(conversation), page.url
    page.evaluate(OBSERVE)
    with page.expect_request(re.compile(r"/v1/conversations/.+/turns$")) as posted:
        turn = chip(page, MULTI)
    request = posted.value
    headers = request.headers
    assert headers["accept"] == "text/event-stream"
    assert UUID.match(headers["idempotency-key"])
    assert headers["x-csrf-token"]
    assert json.loads(request.post_data or "") == {"text": MULTI, "locale": "en"}

    turn_id = turn.get_attribute("data-turn-id")
    assert turn_id
    assert turn.locator(".msg--user").inner_text().endswith(MULTI)
    receipts = turn.locator(".block--receipt")
    assert receipts.count() == 2
    shown_ids = []
    for i in range(2):
        receipt = receipts.nth(i)
        assert receipt.locator(".receipt__check").inner_text() == "✓"
        shown_ids += re.findall(r"ev-\d+", receipt.locator(".receipt__events").inner_text())
    committed = server.query("SELECT id FROM events WHERE turn_id = ? ORDER BY pos", turn_id)
    assert shown_ids == [str(r[0]) for r in committed]
    assert operations_of(server, turn_id) == ["trip.add_traveler", "trip.change_dates"]
    assert "Porto" in receipts.nth(0).inner_text() and "July" in receipts.nth(1).inner_text()
    answer = turn.locator(".block--answer")
    assert answer.count() == 1 and "23 kg" in answer.inner_text()
    kinds = [b["kind"] for b in blocks_snapshot(page)[-1]["blocks"]]
    assert kinds == ["receipt", "receipt", "answer"]
    assert turn.locator("a.turn__inspect").get_attribute("href") == f"/turns/{turn_id}"

    steps = turn.locator(".steps .step").all_text_contents()
    assert steps and all(steps), steps  # the reading was narrated, in words
    assert turn.locator(".steps__summary").inner_text() in (
        "Read in 1 step",
        f"Read in {len(steps)} steps",
    )
    seen = page.evaluate("window.__seen")
    phases = [s for s in seen if s.startswith("phase:")]
    assert phases[0] == "phase:received" and "phase:committed" in phases, seen
    assert "step" in seen and seen.index("step") < seen.index("blocks"), seen
    # blocks are drawn only after the commit was streamed, all at once (3 blocks)
    first = seen.index("blocks")
    assert first > seen.index("phase:committed"), seen
    assert seen[first:] == ["blocks"] * 3 or seen[first : first + 3] == ["blocks"] * 3, seen
    screenshot(page, "chat-multi-act")
    browser.assert_clean()


def test_a_selection_card_then_a_confirmation(server: Server, browser: Browser) -> None:
    page = open_chat(browser.page(), server.url + "/")
    events_before = len(server.events())
    turn = chip(page, SEAT)
    card = turn.locator(".card")
    assert card.count() == 1
    assert card.get_attribute("data-card-kind") == "select_target"
    assert card.locator(".card__option").count() == 2
    assert turn.locator(".block--receipt").count() == 0
    assert len(server.events()) == events_before  # a question, no effect yet

    interaction_id = card.get_attribute("data-interaction-id")
    with page.expect_request(re.compile(r"/v1/conversations/.+/turns$")) as posted:
        reply = click_option(page, card, JUNE)
    body = json.loads(posted.value.post_data or "")
    assert "text" not in body  # a structured click, never text
    assert body["click"]["interaction_id"] == interaction_id
    assert body["click"]["option_id"] == "o2"
    assert "expected_revision" in body["click"]
    assert card.get_attribute("data-status") == "resolved"
    assert card.locator(".card__state").inner_text().startswith("Resolved: Lisbon · 3–6 June")
    assert all(
        card.locator(".card__option").nth(i).is_disabled() for i in range(2)
    )  # a resolved card takes no second click
    assert (
        reply.locator(".msg--user")
        .inner_text()
        .endswith("You clicked: Lisbon · 3–6 June 2026 · planning")
    )
    assert reply.locator(".block--receipt").count() == 1
    assert operations_of(server, str(reply.get_attribute("data-turn-id"))) == ["trip.add_extra"]

    turn = chip(page, HOTEL)
    card = turn.locator(".card")
    assert card.get_attribute("data-card-kind") == "confirm"
    assert count_operation(server, "trip.book_hotel") == 0
    reply = click_option(page, card, "Confirm")
    assert reply.locator(".block--receipt").count() == 1
    assert "Hotel Avenida" in reply.locator(".block--receipt").inner_text()
    assert count_operation(server, "trip.book_hotel") == 1
    assert card.locator(".card__state").inner_text() == "Resolved: Confirm"
    screenshot(page, "chat-cards")
    browser.assert_clean()


def test_a_double_click_in_two_tabs_has_exactly_one_effect(
    server: Server, browser: Browser
) -> None:
    first = open_chat(browser.page(), server.url + "/")
    chip(first, HOTEL)
    second = open_chat(browser.tab(first.context), first.url)
    third = open_chat(browser.tab(first.context), first.url)  # looks on, never clicks
    card1, card2 = last_card(first), last_card(second)
    assert card1.get_attribute("data-interaction-id") == card2.get_attribute("data-interaction-id")
    assert card2.get_attribute("data-status") == "open"
    before = server.events()

    # both tabs still show the card open: click Confirm in each, the second at once
    card1.locator(".card__option", has_text="Confirm").click()
    card2.locator(".card__option", has_text="Confirm").click()
    wait_turns(first, 2)
    wait_turns(second, 2)

    new = server.events()[len(before) :]
    assert count_operation(server, "trip.book_hotel") == 1, new
    assert len({turn for _id, _type, turn in new}) == 1, new  # one turn committed, once
    replies = [last_turn(page) for page in (first, second)]
    receipts = sum(r.locator(".block--receipt").count() for r in replies)
    codes = [c for r in replies for c in r.locator(".notice__code").all_inner_texts()]
    assert receipts == 1 and codes == ["already_resolved"], (receipts, codes)
    for page in (first, second):
        card = last_card(page)
        page.wait_for_function(
            "el => el.getAttribute('data-status') === 'resolved'", arg=card.element_handle()
        )
        assert card.locator(".card__state").inner_text() == "Resolved: Confirm"
        assert card.locator(".card__option").first.is_disabled()
    # the onlooking tab shows the resolution as soon as it is looked at again
    watched = last_card(third)
    assert watched.get_attribute("data-status") == "open"
    third.evaluate("window.dispatchEvent(new Event('focus'))")
    third.wait_for_function(
        "el => el.getAttribute('data-status') === 'resolved'", arg=watched.element_handle()
    )
    assert watched.locator(".card__state").inner_text() == "Resolved: Confirm"
    screenshot(first, "chat-double-click-tab1")
    screenshot(second, "chat-double-click-tab2")
    browser.assert_clean()


def test_the_tour_by_clicking_then_a_reload_shows_identical_blocks(
    server: Server, browser: Browser
) -> None:
    page = open_chat(browser.page(), server.url + "/")
    chips = page.eval_on_selector_all(".chip", "cs => cs.map(c => c.textContent)")
    assert chips[:3] == [MULTI, SEAT, HOTEL], chips
    for text in chips:
        chip(page, text)
        if text == SEAT:
            click_option(page, last_card(page), JUNE)
        if text == HOTEL:
            click_option(page, last_card(page), "Confirm")
    assert page.locator(".block--problem").count() == 0
    assert page.locator(".chip--used").count() == len(chips)
    before = blocks_snapshot(page)
    conversation = conversation_of(page)

    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert conversation_of(page) == conversation
    after = blocks_snapshot(page)
    assert after == before

    # and they are the server's stored blocks, in order
    status, view = server.api("GET", f"/v1/conversations/{conversation}")
    assert status == 200
    assert [t["turn_id"] for t in view["turns"]] == [t["turn_id"] for t in after]
    for stored, shown in zip(view["turns"], after, strict=True):
        assert [b["kind"] for b in stored["blocks"]] == [b["kind"] for b in shown["blocks"]]
    screenshot(page, "chat-tour-reloaded")
    browser.assert_clean()


def user_messages(page: Any) -> list[str]:
    """The words of every turn's user message, in order ('' for a turn with none)."""
    return [
        str(x)
        for x in page.eval_on_selector_all(
            "article.turn",
            "ts => ts.map(t => { const m = t.querySelector('.msg--user .msg__text');"
            " return m ? m.textContent : ''; })",
        )
    ]


def test_a_reload_in_a_new_browser_context_shows_the_users_messages(
    server: Server, browser: Browser
) -> None:
    page = open_chat(browser.page(), server.url + "/")
    chip(page, SEAT)
    click_option(page, last_card(page), JUNE)
    sent = user_messages(page)
    assert sent[0] == SEAT and sent[1].endswith("You clicked: Lisbon · 3–6 June 2026 · planning")

    # another browser (a fresh context: no localStorage), the same account and address
    other = open_chat(browser.page(), page.url)
    noted = other.evaluate(
        "Object.keys(localStorage).filter(k => k.startsWith('turnframe:said:')).length"
    )
    assert noted == 0
    assert turn_ids(other) == turn_ids(page)
    assert user_messages(other) == sent
    assert blocks_snapshot(other) == blocks_snapshot(page)
    screenshot(other, "chat-reloaded-elsewhere")
    browser.assert_clean()


def test_superseded_and_stale_cards_are_out_of_date_and_do_nothing(
    server: Server, browser: Browser
) -> None:
    page = open_chat(browser.page(), server.url + "/")
    chip(page, HOTEL)
    old = last_card(page)
    old_id = str(old.get_attribute("data-interaction-id"))
    old_revision = old.get_attribute("data-expected-revision")

    # the same request again draws a newer card on the same trip: the first is superseded
    chip(page, HOTEL)
    assert old.get_attribute("data-status") == "superseded"
    assert "card--stale" in (old.get_attribute("class") or "")
    assert old.locator(".card__state").inner_text() == "Out of date (superseded)"
    assert old.locator(".card__option").first.is_disabled()
    assert server.card_status(old_id) == "superseded"

    # a click on it anyway (a tab that still showed it open): a notice, nothing runs
    page.evaluate(
        "([id, rev]) => TurnframeChat.sendClick({interaction_id: id, option_id: 'confirm',"
        " expected_revision: rev === null ? null : Number(rev)}, 'Confirm')",
        [old_id, old_revision],
    )
    wait_turns(page, 3)
    reply = last_turn(page)
    assert reply.locator(".block--notice").count() >= 1
    assert reply.locator(".block--receipt").count() == 0
    assert count_operation(server, "trip.book_hotel") == 0

    # the newer card, made stale by a later change to the same trip, then clicked
    newer_id = str(page.locator(".card").nth(1).get_attribute("data-interaction-id"))
    newer = page.locator(f'.card[data-interaction-id="{newer_id}"]')
    chip(page, SEAT)
    click_option(page, last_card(page), JUNE)
    assert count_operation(server, "trip.add_extra") == 1
    click_option(page, newer, "Confirm")
    assert count_operation(server, "trip.book_hotel") == 0
    assert server.card_status(newer_id) == "stale"
    page.wait_for_function(
        "el => el.getAttribute('data-status') === 'stale'", arg=newer.element_handle()
    )
    assert newer.locator(".card__state").inner_text() == "Out of date (stale)"
    reply = last_turn(page)
    assert reply.locator(".block--notice").count() >= 1
    screenshot(page, "chat-stale-cards")
    browser.assert_clean()


def test_another_accounts_card_id_is_not_found_and_nothing_runs(
    server: Server, browser: Browser
) -> None:
    mine = open_chat(browser.page("acme"), server.url + "/")
    chip(mine, SEAT)
    card = last_card(mine)
    card_id = str(card.get_attribute("data-interaction-id"))
    events_before = server.events()
    turns_before = server.query("SELECT COUNT(*) FROM turns")[0][0]

    browser.watch.expect_status(404, "/turns")
    theirs = open_chat(browser.page("globex"), server.url + "/")
    theirs.evaluate(
        "id => TurnframeChat.sendClick({interaction_id: id, option_id: 'o2',"
        " expected_revision: null}, 'Lisbon')",
        card_id,
    )
    wait_turns(theirs, 1)
    problem = theirs.locator(".block--problem")
    assert problem.count() == 1
    assert problem.get_attribute("data-code") == "not_found"
    status, body = server.api(
        "POST",
        "/v1/conversations/x/turns",
        account="globex",
        body={"click": {"interaction_id": "card-none", "option_id": "o2"}},
    )
    assert status == 404 and body["code"] == "not_found"
    assert problem.locator(".block__text").inner_text() == body["detail"]
    assert server.events() == events_before
    assert server.query("SELECT COUNT(*) FROM turns")[0][0] == turns_before
    assert server.card_status(card_id) == "open"

    # the owner's card was untouched: its click still has its one effect
    click_option(mine, card, JUNE)
    assert count_operation(server, "trip.add_extra") == 1
    screenshot(theirs, "chat-foreign-card")
    browser.assert_clean()


def test_the_inspector_page_shows_the_evidence_words(server: Server, browser: Browser) -> None:
    page = open_chat(browser.page(), server.url + "/")
    turn = chip(page, MULTI)
    turn_id = turn.get_attribute("data-turn-id")
    with page.context.expect_page() as opened:
        turn.locator("a.turn__inspect").click()
    inspector = opened.value
    inspector.wait_for_load_state()
    assert urlparse(inspector.url).path == f"/turns/{turn_id}"
    inspector.wait_for_selector("body[data-state='ready']")
    marks = inspector.eval_on_selector_all(
        "#message mark.evidence", "ms => ms.map(m => m.textContent)"
    )
    assert "the Porto trip" in marks, marks  # the words the act's target was read from
    assert all(m and m in MULTI for m in marks), marks
    assert inspector.locator("#message").inner_text().replace("\n", " ") == MULTI
    screenshot(inspector, "inspector")
    # the replay button re-runs the turn's reduction from its record: the same plan
    inspector.locator("#replay").click()
    inspector.wait_for_selector("#replay-result[data-same]")
    assert inspector.locator("#replay-result").get_attribute("data-same") == "true"
    screenshot(inspector, "inspector-replayed")
    screenshot(page, "chat-before-inspector")
    browser.assert_clean()


def test_the_chat_is_usable_at_phone_width(server: Server, browser: Browser) -> None:
    page = open_chat(browser.page(width=390, height=844), server.url + "/")
    assert page.evaluate("document.querySelector('meta[name=viewport]').content").startswith(
        "width=device-width"
    )
    chip(page, SEAT)
    card = last_card(page)
    for i in range(card.locator(".card__option").count()):
        box = card.locator(".card__option").nth(i).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert box["height"] >= 36  # a finger-sized target
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "chat-phone-card")
    click_option(page, card, JUNE)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    send = page.locator("#send").bounding_box()
    assert send and send["y"] + send["height"] <= 844
    screenshot(page, "chat-phone")
    browser.assert_clean()


def test_portuguese_labels_and_replies(server: Server, browser: Browser) -> None:
    page = open_chat(browser.page(), server.url + "/")
    locales = page.eval_on_selector_all("#lang option", "os => os.map(o => o.value)")
    assert "pt-PT" in locales, locales
    page.select_option("#lang", "pt-PT")
    assert page.locator("#send").inner_text() == "Enviar"
    assert page.evaluate("document.documentElement.lang") == "pt-PT"
    with page.expect_request(re.compile(r"/v1/conversations/.+/turns$")) as posted:
        turn = chip(page, MULTI)
    assert json.loads(posted.value.post_data or "")["locale"] == "pt-PT"
    assert turn.locator(".receipt__label").first.inner_text().lower() == "feito"
    assert turn.locator("a.turn__inspect").inner_text() == "Inspecionar este turno"
    status, view = server.api("GET", f"/v1/conversations/{conversation_of(page)}")
    assert status == 200
    receipts = [b for b in view["turns"][0]["blocks"] if b["kind"] == "receipt"]
    assert receipts and all(b["receipt"]["locale"] == "pt-PT" for b in receipts)
    # the reload keeps the language
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#send").inner_text() == "Enviar"
    screenshot(page, "chat-pt-PT")
    browser.assert_clean()


def test_a_message_over_the_limit_is_refused_on_the_page(server: Server, browser: Browser) -> None:
    page = open_chat(browser.page(), server.url + "/")
    limit = int(page.evaluate("TurnframeChat.state.session.max_message_bytes"))
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    text = "é" * (limit // 2 + 1)  # fewer characters than the limit, more UTF-8 bytes
    assert len(text) <= limit
    page.fill("#message", text)
    page.click("#send")
    notice = page.locator("#local-notice")
    notice.wait_for(state="visible")
    assert f"{limit + 2} bytes" in notice.inner_text() and str(limit) in notice.inner_text()
    assert posts == []
    assert server.query("SELECT COUNT(*) FROM turns")[0][0] == 0
    assert page.input_value("#message") == text  # nothing lost
    browser.assert_clean()


def test_a_problem_from_the_server_is_shown_readably(server: Server, browser: Browser) -> None:
    page = open_chat(browser.page(), server.url + "/")
    problem = {
        "type": "about:blank",
        "title": "Store unavailable",
        "status": 503,
        "code": "store_unavailable",
        "detail": "The store did not answer; try again in a moment.",
    }
    browser.watch.expect_status(503, "/turns")
    page.route(
        re.compile(r"/v1/conversations/.+/turns$"),
        lambda route: route.fulfill(
            status=503,
            headers={"Content-Type": "application/problem+json", "Retry-After": "1"},
            body=json.dumps(problem),
        ),
    )
    chip(page, SEAT)
    shown = page.locator(".block--problem")
    assert shown.locator(".block__text").inner_text() == problem["detail"]
    assert "store_unavailable" in shown.inner_text() and "503" in shown.inner_text()
    assert not page.locator("#send").is_disabled()  # the page is usable again
    browser.assert_clean()


def test_a_broken_stream_resumes_with_last_event_id(server: Server, browser: Browser) -> None:
    page = open_chat(browser.page(), server.url + "/")
    resumed: list[dict[str, str]] = []
    page.on(
        "request",
        lambda r: resumed.append(r.headers) if re.search(r"/v1/turns/.+/events$", r.url) else None,
    )

    def cut_short(route: Any) -> None:
        response = route.fetch()
        frames = response.text().replace("\r\n", "\n").split("\n\n")
        route.fulfill(
            status=response.status,
            headers={"Content-Type": "text/event-stream"},
            body="\n\n".join(frames[:2]) + "\n\n",  # the stream breaks after two events
        )

    page.route(re.compile(r"/v1/conversations/.+/turns$"), cut_short)
    turn = chip(page, MULTI)
    assert resumed and resumed[0].get("last-event-id") == "2", resumed
    assert turn.locator(".block--receipt").count() == 2
    assert page.locator(".block--problem").count() == 0
    conversation = conversation_of(page)
    rows = server.query("SELECT COUNT(*) FROM turns WHERE conversation_id = ?", conversation)
    assert rows[0][0] == 1  # resumed, not sent again
    assert turn_ids(page) == [turn.get_attribute("data-turn-id")]
    browser.assert_clean()


def test_an_unanswered_send_is_retried_with_the_same_idempotency_key(
    server: Server, browser: Browser
) -> None:
    page = open_chat(browser.page(), server.url + "/")
    keys: list[str] = []
    calls = [0]

    def lose_the_answer(route: Any) -> None:
        keys.append(route.request.headers["idempotency-key"])
        calls[0] += 1
        if calls[0] == 1:
            route.fetch()  # the server runs the turn ...
            route.abort("connectionreset")  # ... and its answer never arrives
        else:
            route.continue_()

    browser.watch.expect_network_error("/turns")
    page.route(re.compile(r"/v1/conversations/.+/turns$"), lose_the_answer)
    turn = chip(page, MULTI)
    assert len(keys) == 2 and keys[0] == keys[1], keys
    assert turn.locator(".block--receipt").count() == 2
    conversation = conversation_of(page)
    rows = server.query("SELECT COUNT(*) FROM turns WHERE conversation_id = ?", conversation)
    assert rows[0][0] == 1  # the retry found the same turn: never a second
    assert count_operation(server, "trip.add_traveler") == 1
    browser.assert_clean()


def test_the_page_runs_under_a_strict_content_security_policy(
    server: Server, browser: Browser
) -> None:
    page = browser.page()
    policy = "default-src 'self'; frame-ancestors 'none'"  # no data: (the icon is /static)

    def strict(route: Any) -> None:
        response = route.fetch()
        headers = {**response.headers, "content-security-policy": policy}
        route.fulfill(response=response, headers=headers)

    # the two documents: the chat and the inspector (their scripts and styles are /static)
    page.route(re.compile(r"^[^?]*/(turns/[^/?]+)?(\?.*)?$"), strict)
    open_chat(page, server.url + "/")
    turn = chip(page, SEAT)
    click_option(page, turn.locator(".card"), JUNE)
    assert page.locator(".block--receipt").count() == 1
    page.goto(server.url + f"/turns/{turn.get_attribute('data-turn-id')}")
    page.wait_for_selector("body[data-state='ready']")
    browser.assert_clean()  # a refused script, style or image would be a console error
