"""Helpers every travel workflow shares: JSON shapes, evaluated values, domain refusals.

Private to the sample. It imports only ``turnframe.core`` and the stdlib, as an adopter's
code would (docs/architecture.md "What you write").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, ClassVar, Final

from turnframe.core import (
    LOW,
    REVERSIBLE,
    ArgumentKind,
    ArgumentSpec,
    ArgValue,
    CaseRef,
    ClaimMode,
    CommandPolicy,
    CommandText,
    JSONObject,
    JSONValue,
    OperationSpec,
    Refusal,
    Refused,
    RenderedArgument,
    RiskClass,
    TypedCommand,
    confirm,
)
from turnframe.core import (
    arg as kit_arg,
)
from turnframe.samples.travel import copy

__all__ = [
    "COMPANY",
    "LOW_RISK",
    "REVERSIBLE_RISK",
    "Rejected",
    "TransitionRefused",
    "TravelCommand",
    "arg",
    "ask_argument",
    "arg_field",
    "command_text",
    "confirmed",
    "date_from_json",
    "date_value",
    "int_value",
    "localized",
    "no_candidate",
    "record_value",
    "ref_from_json",
    "refusal",
    "text_value",
]

COMPANY: Final = "company"
"""The literal a payer argument accepts besides a traveler record."""


LOW_RISK: Final = LOW
"""The declared policy of a low-risk operation: it runs on a direct act (docs/samples/travel.md)."""

REVERSIBLE_RISK: Final = REVERSIBLE
"""The declared policy of a reversible operation (``trip.remove_extra``)."""


def confirmed(risk: RiskClass, *, claim_mode: ClaimMode = ClaimMode.RECEIPT) -> CommandPolicy:
    """Return the declared policy of a ``risk`` operation that needs a Confirm card (I17)."""
    return confirm(risk, claim_mode=claim_mode)


class Rejected(Refused):
    """A domain refusal raised inside a check; becomes a :class:`Refusal` at the edge.

    See docs/architecture.md "One turn" step 5.

    The authoring kit's :class:`~turnframe.core.Refused`, so a ``Workflow`` base catches it.

    Args:
        code: the stable refusal code (a key of ``copy`` under ``refusal.``).
        params: values the sentence interpolates (server data only).
    """


def refusal(rejected: Refused, locale: str, *, variant: str | None = None) -> Refusal:
    """Return the :class:`Refusal` for ``rejected``, worded in ``locale``.

    See docs/architecture.md "One turn" step 5.

    ``variant`` picks another wording of the same code (``refusal.<code>.<variant>``).
    """
    params = {key: copy.param(locale, key, value) for key, value in rejected.params.items()}
    key = f"refusal.{rejected.code}" + (f".{variant}" if variant else "")
    sentence = copy.text(locale, key, **params)
    return Refusal(code=rejected.code, sentence=sentence)


class TransitionRefused(ValueError):
    """A system or external transition the case cannot take (a callback or schedule, I4, I19).

    A ``ValueError`` so callers that only know the stdlib can catch it; ``refusal`` carries
    the stable code and the domain's English sentence, which is also the message.

    Args:
        refusal: the domain's refusal.
    """

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.sentence)
        self.refusal = refusal


class TravelCommand(TypedCommand):
    """Base of the sample's frozen-dataclass commands (the kit's :class:`TypedCommand`).

    Subclasses are ``@dataclass(frozen=True, slots=True, kw_only=True)`` themselves
    (``AUTO_DATACLASS`` is off) and set ``OPERATION`` (or the ``operation=`` keyword).
    ``to_json`` is the canonical JSON of the fields: dates as ISO strings and record
    references as ``"workflow/case_id"`` (docs/authoring.md#commands).
    """

    __slots__ = ()
    AUTO_DATACLASS: ClassVar[bool] = False


def localized(en: str, pt: str) -> dict[str, str]:
    """Return per-locale copies of a string for ``labels``/``summaries`` (en, pt-PT, pt).

    See docs/architecture.md "Understanding".
    """
    return {copy.EN: en, copy.PT: pt, "pt": pt}


def arg(
    name: str,
    kind: ArgumentKind = ArgumentKind.TEXT,
    *,
    required: bool = False,
    description: str = "",
    choices: tuple[str, ...] = (),
    record_workflow: str | None = None,
    literals: tuple[str, ...] = (),
    names_record: bool = False,
) -> ArgumentSpec:
    """Return an :class:`ArgumentSpec` whose labels come from ``copy`` (en and pt-PT).

    See docs/architecture.md "Understanding".
    """
    return ArgumentSpec(
        name=name,
        kind=kind,
        required=required,
        choices=choices,
        record_workflow=record_workflow,
        label=copy.arg_label(copy.EN, name),
        labels=localized(copy.arg_label(copy.EN, name), copy.arg_label(copy.PT, name)),
        description=description,
        literals=literals,
        names_record=names_record,
    )


def arg_field(
    name: str,
    default: object = dataclasses.MISSING,
    *,
    description: str = "",
    workflow: str | None = None,
    names_record: bool = False,
) -> Any:
    """Return a command field whose argument is labelled from ``copy`` (en and pt-PT).

    The field-level twin of :func:`arg`, for a :class:`TravelCommand` whose fields derive
    its operation's argument specs; ``workflow`` names a record field's workflow
    (docs/authoring.md#commands).
    """
    return kit_arg(
        default,
        label=copy.arg_label(copy.EN, name),
        labels=localized(copy.arg_label(copy.EN, name), copy.arg_label(copy.PT, name)),
        description=description,
        workflow=workflow,
        names_record=names_record,
    )


def no_candidate(
    workflow: str, operation: OperationSpec, argument: ArgumentSpec | None, locale: str
) -> str:
    """Return the sentence for words naming only records that ``operation`` does not fit.

    ``workflow`` is the records' workflow; ``argument`` is set when they were looked up
    as a record argument's value (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
    Server data only: the operation's summary in ``locale``, never the user's words.
    """
    key = f"no_candidate.{workflow}" + (".argument" if argument is not None else "")
    if not copy.has(key):
        key = f"no_candidate.{workflow}"
    summary = operation.summary_in(locale).rstrip(".")
    return copy.text(locale, key, operation=summary)


def ask_argument(argument: ArgumentSpec, locale: str) -> str:
    """Return the code-written question for a missing ``argument``, en or pt-PT.

    See docs/architecture.md "Claims".
    """
    key = f"ask.arg.{argument.name}"
    if copy.has(key):
        return copy.text(locale, key)
    return copy.text(locale, "ask.arg.other", argument=copy.arg_label(locale, argument.name))


_DATE_ARGS: Final = ("start", "end", "birth_date")


def command_text(
    locale: str,
    arguments: JSONObject,
    operation: str,
    labels: Mapping[CaseRef, str],
    *,
    shown: Mapping[str, str] | None = None,
    **params: object,
) -> CommandText:
    """Return a proposed command worded for a card in ``locale`` (ADR 0003, ``render_command``).

    Every argument of ``arguments`` (a command's ``to_json()``) with a value is rendered:
    dates written out, nights counted, an extra's kind named, ``company`` in words and a
    record reference as its candidate label from ``labels``; ``shown`` overrides a value
    the caller renders from state. The sentence is ``card.<operation>`` of ``copy``,
    filled with those values and ``params``; optional arguments it does not name are
    added by the framework (docs/adr/0013-cards-show-what-they-do.md).

    Raises:
        KeyError: when ``copy`` lacks the operation's card template (a sample defect).
    """
    rendered: dict[str, str] = {}
    for name, value in arguments.items():
        if value is None:
            continue
        if shown and name in shown:
            rendered[name] = shown[name]
        elif name in _DATE_ARGS and isinstance(value, str):
            rendered[name] = copy.fmt_date(locale, date.fromisoformat(value))
        elif name == "nights" and isinstance(value, int):
            rendered[name] = copy.count(locale, "night", value)
        elif name == "kind":
            rendered[name] = copy.kind_name(locale, str(value))
        elif value == COMPANY:
            rendered[name] = copy.text(locale, "payer.company")
        elif isinstance(value, str) and "/" in value:
            ref = ref_from_json(value)
            rendered[name] = labels.get(ref) or ref.case_id
        else:
            rendered[name] = str(value)
    text = copy.text(locale, f"card.{operation}", **rendered, **params)
    return CommandText(
        text=text,
        arguments=tuple(
            RenderedArgument(name=name, label=copy.arg_label(locale, name), value=value)
            for name, value in rendered.items()
        ),
    )


def ref_from_json(value: JSONValue, workflow: str | None = None) -> CaseRef:
    """Return the :class:`CaseRef` serialised as ``"workflow/case_id"`` (state JSON).

    See docs/architecture.md "Workflows".

    Args:
        value: the JSON string.
        workflow: when given, the workflow the reference must belong to.

    Raises:
        ValueError: when ``value`` is not such a string or names another workflow.
    """
    if not isinstance(value, str) or "/" not in value:
        raise ValueError(f"not a record reference: {value!r}")
    name, case_id = value.split("/", 1)
    if not name or not case_id:
        raise ValueError(f"not a record reference: {value!r}")
    if workflow is not None and name != workflow:
        raise ValueError(f"{value!r} is not a {workflow} record")
    return CaseRef(name, case_id)


def date_from_json(value: JSONValue | date) -> date | None:
    """Return the date stored as an ISO string (``None`` stays ``None``; state JSON).

    See docs/architecture.md "Workflows".

    A :class:`datetime.date` passes through and a ``datetime`` is cut to its date, so
    seeded YAML values work too.

    Raises:
        ValueError: for anything else, or an ISO string that is not a date.
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return date.fromisoformat(value)
    raise ValueError(f"not a date: {value!r}")


def text_value(values: Mapping[str, ArgValue], name: str, *, required: bool = False) -> str | None:
    """Return the text argument ``name`` stripped, or ``None`` when absent or blank.

    See docs/architecture.md "One turn" step 5.

    Raises:
        Rejected: ``missing_argument`` when required and absent; ``invalid_value`` when
            the evaluated value is not text.
    """
    value = values.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise Rejected("missing_argument", argument=name)
        return None
    if not isinstance(value, str):
        raise Rejected("invalid_value", argument=name)
    return value.strip()


def date_value(values: Mapping[str, ArgValue], name: str, *, required: bool = False) -> date | None:
    """Return the date argument ``name``, already evaluated against the turn's today.

    See docs/architecture.md "Understanding".

    Raises:
        Rejected: ``missing_argument`` when required and absent; ``invalid_value`` when
            the value is not a date.
    """
    value = values.get(name)
    if value is None:
        if required:
            raise Rejected("missing_argument", argument=name)
        return None
    if isinstance(value, datetime) or not isinstance(value, date):
        raise Rejected("invalid_value", argument=name)
    return value


def int_value(values: Mapping[str, ArgValue], name: str) -> int:
    """Return the required integer argument ``name`` (compilation).

    See docs/architecture.md "One turn" step 5.

    Raises:
        Rejected: ``missing_argument`` when absent; ``invalid_value`` when not an integer.
    """
    value = values.get(name)
    if value is None:
        raise Rejected("missing_argument", argument=name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Rejected("invalid_value", argument=name)
    return value


def record_value(
    values: Mapping[str, ArgValue],
    name: str,
    workflow: str,
    *,
    required: bool = False,
    literals: tuple[str, ...] = (),
) -> CaseRef | str | None:
    """Return record argument ``name``: a :class:`CaseRef` of ``workflow`` or a literal.

    See docs/architecture.md "One turn" step 6.

    Args:
        values: the evaluated arguments.
        name: the argument name.
        workflow: the workflow the record must belong to.
        required: whether absence is a refusal.
        literals: words accepted instead of a record (matched case-insensitively and
            returned in their canonical spelling).

    Raises:
        Rejected: ``missing_argument`` when required and absent; ``invalid_value`` for a
            record of another workflow or a word that is no accepted literal.
    """
    value = values.get(name)
    if value is None:
        if required:
            raise Rejected("missing_argument", argument=name)
        return None
    if isinstance(value, CaseRef):
        if value.workflow != workflow:
            raise Rejected("invalid_value", argument=name)
        return value
    if isinstance(value, str):
        for literal in literals:
            if value.strip().lower() == literal:
                return literal
    raise Rejected("invalid_value", argument=name)
