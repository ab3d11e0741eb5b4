"""Records for scenario files and demos, stated shortly (the ``RecordSeeder`` protocol).

A record is ``{key, workflow: expense_report, title, submitter, currency?, lines?,
status?, approved_by?, payment_reference?, account?}``; ``lines`` is a list of
``{description, amount}`` (amount a number or numeric string with at most two
decimals), given ids ``L1``, ``L2``… in order. ``account`` is read by the scenario
runner, not here. No record references another, so the order is the file's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from turnframe.core import CaseRef, JSONObject
from turnframe.samples.expenses.model import (
    CURRENCIES,
    REPORT_STATUSES,
    WORKFLOW,
    Line,
    ReportState,
    dump_report,
    load_report,
    money,
)

__all__ = ["ExpenseSeeder"]

_FIELDS = frozenset(
    {
        "key",
        "workflow",
        "account",
        "title",
        "submitter",
        "currency",
        "lines",
        "status",
        "approved_by",
        "payment_reference",
    }
)
_LINE_FIELDS = frozenset({"description", "amount"})


def _where(record: Mapping[str, Any]) -> str:
    return f"record {record.get('key', '?')}"


def _text(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{_where(record)}: {name} must be non-empty text, not {value!r}")
    return value.strip()


def _lines(record: Mapping[str, Any]) -> tuple[Line, ...]:
    raw = record.get("lines", [])
    if not isinstance(raw, list):
        raise ValueError(f"{_where(record)}: lines must be a list")
    lines: list[Line] = []
    for n, item in enumerate(raw, start=1):
        at = f"{_where(record)}: lines[{n - 1}]"
        if not isinstance(item, Mapping) or set(item) - _LINE_FIELDS:
            raise ValueError(f"{at} must be {{description, amount}}, not {item!r}")
        description = item.get("description")
        if not isinstance(description, str) or not description.strip():
            raise ValueError(f"{at}.description must be non-empty text")
        try:
            amount = money(item.get("amount"))
        except ValueError as exc:
            raise ValueError(f"{at}.amount: {exc}") from None
        if amount <= 0:
            raise ValueError(f"{at}.amount must be above zero")
        lines.append(Line(id=f"L{n}", description=description.strip(), amount=amount))
    return tuple(lines)


class ExpenseSeeder:
    """Implements :class:`turnframe.runtime.RecordSeeder` for expense reports."""

    def seed_order(self, records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """Return ``records`` as given (none references another), keys checked unique.

        Raises:
            ValueError: naming a missing or repeated key, or a record of another workflow.
        """
        seen: set[str] = set()
        for record in records:
            key = record.get("key")
            if not isinstance(key, str) or not key:
                raise ValueError(f"every record needs a key, not {key!r}")
            if key in seen:
                raise ValueError(f"record {key}: the key is used twice")
            if record.get("workflow", WORKFLOW) != WORKFLOW:
                raise ValueError(f"record {key}: unknown workflow {record.get('workflow')!r}")
            seen.add(key)
        return list(records)

    def seed_state(
        self, record: Mapping[str, Any], refs: Mapping[str, CaseRef]
    ) -> tuple[str, JSONObject]:
        """Return ``("expense_report", JSON state)`` for one record.

        Raises:
            ValueError: naming an unknown or malformed field.
        """
        unknown = sorted(set(record) - _FIELDS)
        if unknown:
            raise ValueError(f"{_where(record)}: unknown field {unknown[0]!r}")
        currency = record.get("currency", "EUR")
        if currency not in CURRENCIES:
            raise ValueError(f"{_where(record)}: currency must be one of {CURRENCIES}")
        status = record.get("status", "draft")
        if status not in REPORT_STATUSES:
            raise ValueError(f"{_where(record)}: status must be one of {REPORT_STATUSES}")
        lines = _lines(record)
        state = ReportState(
            title=_text(record, "title"),
            submitter=_text(record, "submitter"),
            currency=str(currency),
            lines=lines,
            next_line=len(lines) + 1,
        )
        data = dump_report(state)
        data["status"] = str(status)
        for name in ("approved_by", "payment_reference"):
            if record.get(name) is not None:
                data[name] = _text(record, name)
        load_report(data)  # the state as stored must read back
        return WORKFLOW, data
