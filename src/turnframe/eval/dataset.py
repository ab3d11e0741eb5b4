"""Evaluation sets: user messages with the acts, targets, arguments and results expected.

A set is a directory of YAML files. Each file shares ``sample``, ``today``, ``actor``,
``locale`` and ``records`` (as scenario files do) and lists ``cases``; each case is one
message read in a fresh store, optionally after ``before`` turns written as scenario turns
(to put a card on screen). A case may name its own ``locale`` (default: the file's, whose
default is ``en``); the message and its ``before`` turns are read in it. Acts are numbered
``a1``, ``a2``... in message order, as the pipeline numbers them. The format is described
in docs/eval-sets.md "Writing a case".
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from turnframe.core.errors import UsageError
from turnframe.testing.bounded_yaml import load_yaml, yaml_error_line

__all__ = ["LOCALE_PATTERN", "EvalAct", "EvalCase", "EvalFile", "first_problem", "load_set"]

LOCALE_PATTERN = r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$"
"""A locale tag as the applications declare them (``en``, ``pt-PT``): BCP 47's shape.

Whether the application serves it is checked when the set runs (the scenario runner)
and by the set tests (docs/eval-sets.md "Locale")."""

LocaleTag = Annotated[str, StringConstraints(pattern=LOCALE_PATTERN)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EvalAct(_Strict):
    """An expected act: its unit's words, operation, target keys and argument values."""

    unit: str
    op: str
    target: list[str] | Literal["new"] | dict[str, str] = Field(default_factory=list)
    args: dict[str, str] = Field(default_factory=dict)
    evidence: dict[str, str] = Field(default_factory=dict)
    hypothetical: bool = False
    corrects: str | None = None
    source: Literal["user", "record", "attachment"] = "user"


class EvalQuestion(_Strict):
    """An expected question."""

    unit: str
    topic: str
    target: list[str] = Field(default_factory=list)


class EvalConstraint(_Strict):
    """An expected constraint."""

    unit: str
    kind: Literal["do_not_submit", "allow_submit"]
    scope: Literal["turn", "standing"] = "turn"


class EvalCancellation(_Strict):
    """An expected cancellation of an earlier unit of the message."""

    unit: str
    cancels: str


class EvalCardAnswer(_Strict):
    """An expected answer to the card on screen (``card`` is ``last`` or ``#n``)."""

    unit: str
    card: str = "last"
    option: str


class EvalUnoffered(_Strict):
    """An expected request that no operation on offer does (``pay`` asked by an employee).

    The reader sees only the operations the actor is offered (docs/invariants.md I2), so
    a perfect reading is a request unit with no act; the runtime tells the user it
    cannot be done here (docs/eval-sets.md "Writing a case").
    """

    unit: str


class EvalCase(_Strict):
    """One message and what reading it must give."""

    id: str
    text: str
    tags: list[str] = Field(default_factory=list)
    before: list[dict[str, Any]] = Field(default_factory=list)
    acts: list[EvalAct] = Field(default_factory=list)
    questions: list[EvalQuestion] = Field(default_factory=list)
    constraints: list[EvalConstraint] = Field(default_factory=list)
    cancellations: list[EvalCancellation] = Field(default_factory=list)
    card_answers: list[EvalCardAnswer] = Field(default_factory=list)
    unoffered: list[EvalUnoffered] = Field(default_factory=list)
    results: dict[str, str] = Field(default_factory=dict)
    commands: list[dict[str, str]] | None = None
    checks: dict[str, str] = Field(default_factory=dict)
    """Per-case checks for a reply judge: check id → a yes/no statement the reply must
    make true, asked beside the default checklist (docs/evals.md "Judges and checklists")."""
    locale: LocaleTag | None = None
    """The locale this message is read in (default: the file's ``locale``)."""


class EvalFile(_Strict):
    """One file of a set: the application, the day, the actor, the locale and the records.

    ``sample`` names the application (an installed ``turnframe.apps`` name, as scenario
    files do); ``locale`` is the cases' default locale (docs/eval-sets.md "Locale").
    """

    sample: str
    today: str
    actor: dict[str, Any]
    locale: LocaleTag = "en"
    records: list[dict[str, Any]] = Field(default_factory=list)
    cases: list[EvalCase]

    def locale_of(self, case: EvalCase) -> str:
        """Return the locale ``case`` is read in: its own, else the file's."""
        return case.locale or self.locale


def _dates_as_words(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _dates_as_words(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_dates_as_words(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value


def first_problem(exc: ValidationError) -> str:
    """Return the first problem of ``exc`` on one line: its YAML path and what is wrong.

    An unknown key is reported before anything else (a union reports one error per
    member it tried; the extra key is what the author wrote wrong).
    """
    errors = exc.errors()
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    where = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in first["loc"])
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"at {where.lstrip('.') or 'the top'}: {first['msg']}{more}"


def load_set(path: str | Path) -> list[tuple[Path, EvalFile]]:
    """Return every file of the set at ``path`` (a file or a directory of ``*.yaml``).

    Raises:
        UsageError: when a file is missing or breaks the format, or two cases of the set
            share an id.
    """
    root = Path(path)
    files = sorted(root.rglob("*.yaml")) if root.is_dir() else [root]
    if not files or not all(f.is_file() for f in files):
        raise UsageError(f"no evaluation set at {root}")
    out = []
    seen: dict[str, Path] = {}
    for file in files:
        try:
            raw = _dates_as_words(load_yaml(file.read_text(encoding="utf-8")))
            data = EvalFile.model_validate(raw)
        except ValidationError as exc:
            raise UsageError(f"{file}: {first_problem(exc)}") from None
        except Exception as exc:
            # One line: PyYAML's own message spans several (docs/eval-sets.md).
            raise UsageError(f"{file}: {yaml_error_line(exc)}") from exc
        for case in data.cases:
            if case.id in seen:
                raise UsageError(
                    f"{file}: case id {case.id!r} is used twice in the set (also in "
                    f"{seen[case.id].name}); a report names cases by id"
                )
            seen[case.id] = file
        out.append((file, data))
    return out
