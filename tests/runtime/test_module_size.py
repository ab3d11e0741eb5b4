"""Module size guard for ``src/turnframe/runtime/`` (docs/architecture.md "The pipeline in the code").

No module in the runtime package is over :data:`LIMIT` lines, so each pipeline step stays
a place one can read whole. Pure-refactor guard.
"""

from __future__ import annotations

from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[2] / "src" / "turnframe" / "runtime"

LIMIT = 400
"""Most lines a runtime module may have."""

EXCLUDED: frozenset[str] = frozenset()
"""Runtime modules or packages (path relative to ``runtime/``, no ``.py``) not yet held to
:data:`LIMIT`. Empty: the reducer is a package split by rule family, every module within."""


def _too_long() -> dict[str, int]:
    out: dict[str, int] = {}
    for path in sorted(RUNTIME.rglob("*.py")):
        relative = path.relative_to(RUNTIME).with_suffix("")
        if relative.parts[0] in EXCLUDED or str(relative) in EXCLUDED:
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > LIMIT:
            out[str(relative)] = lines
    return out


def test_no_runtime_module_is_over_the_limit() -> None:
    assert RUNTIME.is_dir(), RUNTIME
    assert not _too_long(), f"runtime modules over {LIMIT} lines: {_too_long()}"


def test_the_guard_sees_every_module() -> None:
    """The walk covers the step modules (so a long step cannot hide in a subpackage)."""
    seen = {str(p.relative_to(RUNTIME).with_suffix("")) for p in RUNTIME.rglob("*.py")}
    assert {"pipeline", "orchestrator", "steps/commit", "steps/resolve"} <= seen
