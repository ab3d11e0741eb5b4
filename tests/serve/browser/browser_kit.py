"""The browser tests' kit: the server under test, watched pages, chat helpers.

docs/web-chat.md "Tests". Used by conftest.py and the tests of this folder only.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """The OS Chromium: ``$TURNFRAME_CHROMIUM``, else ``chromium`` on PATH, else /usr/bin."""
    for candidate in (
        os.environ.get("TURNFRAME_CHROMIUM"),
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
        "/usr/bin/chromium",
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A running ``turnframe serve``: its base URL and an HTTP client for the API."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path
    db: Path

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        """Read the server's SQLite store (read-only): the committed truth to check against."""
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as conn:
            return list(conn.execute(sql, params).fetchall())

    def events(self) -> list[tuple[str, str, str]]:
        """Every committed event as (id, type, turn_id), in commit order."""
        return [
            (str(a), str(b), str(c))
            for a, b, c in self.query("SELECT id, type, turn_id FROM events ORDER BY pos")
        ]

    def card_status(self, interaction_id: str) -> str:
        """The stored status of one card."""
        rows = self.query("SELECT status FROM interactions WHERE id = ?", interaction_id)
        assert rows, f"no card {interaction_id}"
        return str(rows[0][0])

    def api(
        self,
        method: str,
        path: str,
        *,
        account: str = "acme",
        body: Any = None,
    ) -> tuple[int, Any]:
        """Call the API as ``account`` (no browser headers, so no CSRF); (status, JSON).

        The account goes in the ``X-Test-Account`` header (``browser_accounts``): a cookie
        would make the request look like a browser's, which must carry a CSRF token.
        """
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        request.add_header("X-Test-Account", account)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, json.loads(raw) if raw else None


@dataclass
class Watch:
    """What the test's pages said on their consoles, and what they may say.

    A request to any origin but the server's (a CDN, a font) is an error too: the pages
    ship everything they use.
    """

    origin: str = ""
    errors: list[str] = field(default_factory=list)
    expected: list[tuple[int, str]] = field(default_factory=list)
    reported: int = 0

    def expect_status(self, status: int, path_part: str) -> None:
        """Allow one kind of failed load: a ``status`` answer to a URL containing ``path_part``."""
        self.expected.append((status, path_part))

    def expect_network_error(self, path_part: str) -> None:
        """Allow a load of a URL containing ``path_part`` to fail without an answer."""
        self.expected.append((0, path_part))

    def _allowed(self, text: str, url: str) -> bool:
        return any(
            (f"status of {status}" in text if status else "net::ERR_" in text) and part in url
            for status, part in self.expected
        )

    def attach(self, page: Any, name: str) -> Any:
        """Watch ``page``'s console errors and page errors; return the page."""

        def on_console(message: Any) -> None:
            if message.type != "error":
                return
            url = (message.location or {}).get("url", "")
            if message.text.startswith("Failed to load resource") and (
                self._allowed(message.text, url) or urlparse(url).path == "/favicon.ico"
            ):
                # a page without an icon link: the browser asks for /favicon.ico itself
                return
            self.errors.append(f"{name}: console error: {message.text} ({url})")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.errors.append(f"{name}: page error: {error}"))

        def on_request(request: Any) -> None:
            url = str(request.url)
            if self.origin and not url.startswith((self.origin + "/", "data:")):
                self.errors.append(f"{name}: request to another origin: {url}")

        page.on("request", on_request)
        return page


@dataclass
class Browser:
    """The test's Chromium: a context per account, every page watched."""

    browser: Any
    server: Server
    watch: Watch
    contexts: list[Any] = field(default_factory=list)

    def page(self, account: str = "acme", *, width: int = 1100, height: int = 900) -> Any:
        """A new tab as ``account`` (its own context: cookies are per account)."""
        context = self.browser.new_context(viewport={"width": width, "height": height})
        context.add_cookies(
            [{"name": "turnframe_test_account", "value": account, "url": self.server.url}]
        )
        self.contexts.append(context)
        # every page of the context is watched from its first moment, a tab the page
        # opens itself (the inspector link) too
        count = [0]

        def watch(page: Any) -> None:
            count[0] += 1
            self.watch.attach(page, f"{account}/tab{count[0]}")

        context.on("page", watch)
        return self.tab(context)

    def assert_clean(self) -> None:
        """Fail when any watched page logged a console error or raised a page error."""
        fresh = self.watch.errors[self.watch.reported :]
        self.watch.reported = len(self.watch.errors)
        assert not fresh, "\n".join(fresh)

    def tab(self, context: Any) -> Any:
        """Another tab of the same context (the same account and cookies), watched."""
        page = context.new_page()
        page.set_default_timeout(30_000)
        return page


def screenshot(page: Any, name: str) -> Path:
    """Save ``page`` as ``test-artifacts/<name>.png`` (git-ignored); return the path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


# ---- the chat page -------------------------------------------------------------------


def open_chat(page: Any, url: str) -> Any:
    """Load the chat at ``url`` and wait until it has read the session and conversation."""
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def turns_done(page: Any) -> int:
    """How many turns the page has finished (blocks shown or a problem shown)."""
    return int(
        page.evaluate(
            "document.querySelectorAll('.turn[data-rendered=\"1\"], .turn .block--problem').length"
        )
    )


def wait_turns(page: Any, n: int) -> None:
    """Wait until ``n`` turns are finished and the page is idle (cards refreshed)."""
    page.wait_for_function(
        "n => document.querySelectorAll("
        "'.turn[data-rendered=\"1\"], .turn .block--problem').length >= n"
        " && !document.body.classList.contains('is-busy')",
        arg=n,
    )


def say(page: Any, text: str) -> Any:
    """Type ``text``, send it, wait for its reply; return the turn's element."""
    before = int(page.evaluate("document.querySelectorAll('article.turn').length"))
    page.fill("#message", text)
    page.click("#send")
    wait_turns(page, before + 1)
    return last_turn(page)


def last_turn(page: Any) -> Any:
    """The page's last turn, pinned by its id (a later turn does not move the locator)."""
    turn_id = page.locator("article.turn").last.get_attribute("data-turn-id")
    if not turn_id:
        return page.locator("article.turn").last
    return page.locator(f'article.turn[data-turn-id="{turn_id}"]')


def last_card(page: Any) -> Any:
    """The page's last card, pinned by its interaction id."""
    card_id = page.locator(".card").last.get_attribute("data-interaction-id")
    return page.locator(f'.card[data-interaction-id="{card_id}"]').last


def click_option(page: Any, card: Any, label: str) -> Any:
    """Click the option labelled ``label`` on ``card``; wait for the reply; return the turn."""
    before = int(page.evaluate("document.querySelectorAll('article.turn').length"))
    card.locator(".card__option", has_text=label).first.click()
    wait_turns(page, before + 1)
    return last_turn(page)


def blocks_snapshot(page: Any) -> list[dict[str, Any]]:
    """Every turn's id and blocks as the page shows them: kind and words, in order."""
    return list(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('article.turn')).map(t => ({
                turn_id: t.getAttribute('data-turn-id'),
                blocks: Array.from(t.querySelectorAll('.blocks > .block')).map(b => ({
                    kind: b.getAttribute('data-kind'),
                    text: b.innerText,
                    card: b.getAttribute('data-interaction-id'),
                    status: b.getAttribute('data-status'),
                })),
            }))"""
        )
    )


def events_of(server: Server, conversation_id: str, account: str = "acme") -> list[str]:
    """The committed event ids every receipt of the conversation cites, in order."""
    status, view = server.api("GET", f"/v1/conversations/{conversation_id}", account=account)
    assert status == 200, view
    ids: list[str] = []
    for turn in view["turns"]:
        for block in turn["blocks"]:
            if block["kind"] == "receipt":
                ids.extend(block["receipt"]["event_ids"])
    return ids
