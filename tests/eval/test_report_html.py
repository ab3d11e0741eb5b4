"""The HTML report: readable content, everything escaped, nothing loaded.

docs/evals.md "The HTML report".
"""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.eval.report_html import render_html


class _Page(HTMLParser):
    """Collects a page's tags, attributes and text (character references decoded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def _hostile(run: dict[str, Any], words: str) -> dict[str, Any]:
    """Return ``run`` with one failing case whose every text is ``words``."""
    data = copy.deepcopy(run)
    case = data["results"][0]
    case.update(text=words, perfect=False, failures=[words], key=words)
    case["expected"]["acts"] = [words]
    case["produced"]["results"] = [words]
    case["reply"] = [{"kind": words, "text": words}]
    vote = case["judge"]["votes"][0]
    check = next(iter(vote["checks"]))
    vote["checks"][check]["reason"] = words
    case["judge"]["votes"][1] = {"vote": 1, "valid": False, "checks": {}, "error": words}
    data["model"] = words
    data["reply_model"] = words
    return data


def test_the_report_holds_the_tables_and_each_failing_message_s_evidence(
    hostile_run: dict[str, Any],
) -> None:
    page = render_html(hostile_run)
    parsed = _parse(page)
    text = " ".join(parsed.text)
    for heading in ("Per task", "Cost per message", "Judge", "Failing messages"):
        assert heading in text
    for task in hostile_run["tasks"]:
        assert task in text
    failing = [c for c in hostile_run["results"] if not c["perfect"] or not c["judge"]["passed"]]
    assert failing
    for case in failing:
        assert case["key"] in text
        assert case["text"] in text
        for vote in case["judge"]["votes"]:
            for verdict in vote["checks"].values():
                assert verdict["reason"] in text
    assert "expected" in text and "produced" in text and "majority" in text
    assert page.count('<section class="case">') == len(failing)


def test_a_run_with_no_failure_says_so(oracle_run: dict[str, Any]) -> None:
    text = " ".join(_parse(render_html(oracle_run)).text)
    assert "none: every message passed." in text


def test_the_page_loads_nothing(hostile_run: dict[str, Any]) -> None:
    parsed = _parse(render_html(hostile_run))
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(parsed.tags)
    assert not any(name in ("src", "href") or name.startswith("on") for name, _ in parsed.attrs)
    csp = dict(parsed.attrs).get("content") or ""
    assert "default-src 'none'" in csp


@settings(max_examples=120, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.sampled_from(
            [
                "<script>alert(1)</script>",
                '"><img src=x onerror=alert(1)>',
                "</td></tr></table><h1>owned</h1>",
                "<!-- x",
                "&lt;b&gt;",
                "<style>body{display:none}</style>",
                "]]><![CDATA[",
            ]
        ),
    )
)
def test_a_hostile_message_cannot_add_markup(oracle_run: dict[str, Any], words: str) -> None:
    benign = _parse(render_html(_hostile(oracle_run, "plain words")))
    page = render_html(_hostile(oracle_run, words))
    parsed = _parse(page)
    # The same elements and attributes as a page of plain words: nothing was injected.
    assert parsed.tags == benign.tags
    assert [name for name, _ in parsed.attrs] == [name for name, _ in benign.attrs]
    # And the words themselves are on the page, as text (a control character, which
    # HTML cannot carry, as U+FFFD).
    shown = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]", "\ufffd", words)
    assert shown in "".join(parsed.text)


def test_a_run_without_a_judge_still_shows_each_failing_message(
    hostile_run: dict[str, Any],
) -> None:
    data = copy.deepcopy(hostile_run)
    data["judge"] = None
    for case in data["results"]:
        case["judge"] = None
    page = render_html(data)
    text = " ".join(_parse(page).text)
    assert "Judge votes" not in text and "votes per reply" not in text
    assert page.count('<section class="case">') == sum(not c["perfect"] for c in data["results"])
