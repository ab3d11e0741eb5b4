"""The inspector page is plain package data: local URLs only, ids that exist, no HTML parsing.

docs/inspector.md "The page". The defect classes: a page that needs the network (a CDN
URL), a script that looks up an element the page does not have, and a server value
written as HTML (the message is the user's text: it must never be parsed as markup).
The page in a real browser is tested by ``tests/serve/browser/``.
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "src" / "turnframe" / "serve" / "static"
FILES = [STATIC / f"inspector.{ext}" for ext in ("html", "js", "css")]


def test_the_page_and_its_assets_exist_and_name_no_external_url() -> None:
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), path.name
    html = FILES[0].read_text(encoding="utf-8")
    assert 'src="/static/inspector.js"' in html and 'href="/static/inspector.css"' in html


def test_every_element_the_script_looks_up_is_on_the_page() -> None:
    html = FILES[0].read_text(encoding="utf-8")
    script = FILES[1].read_text(encoding="utf-8")
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    wanted = set(re.findall(r'\$\("([^"]+)"\)', script))
    assert wanted and wanted <= ids, wanted - ids
    # The ids the browser tests rely on (docs/inspector.md "Stable hooks").
    assert {"message", "acts", "notices", "model", "reduction", "replay", "replay-result"} <= ids


def test_no_server_value_is_written_as_html() -> None:
    script = FILES[1].read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script, sink
