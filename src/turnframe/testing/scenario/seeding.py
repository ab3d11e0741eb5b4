"""The generic record seeder: ``records:`` entries for an application without its own.

An application that sets :attr:`turnframe.runtime.app.Application.seeder` reads its
records its own way (travel: ``{key: T1, workflow: trip, name: Lisbon, ...}``). Every other
application gets :class:`GenericSeeder`, which reads one form (docs/scenario-format.md
"Records")::

    records:
      - {key: U1, workflow: user, state: {name: Ana}}
      - key: K1
        workflow: ticket
        id: t-100              # optional case id (default: the key in lower case)
        account: other         # optional (default: the file's actor's account)
        state: {title: Printer, reporter: {ref: U1}, reporter_id: {ref_id: U1}}

A mapping ``{ref: KEY}`` anywhere inside ``state`` is replaced by the seeded case's
reference as its JSON string ``"workflow/case_id"`` (``"user/u1"``), and ``{ref_id: KEY}``
by its bare case id (``"u1"``); records are seeded so that a referenced record comes
first. The state is then read by the workflow's ``load_state``, so a state the workflow
would refuse makes the file invalid with the record's path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from turnframe.core.errors import TurnframeError
from turnframe.core.ids import CaseRef, JSONObject
from turnframe.core.workflow import WorkflowRegistry

__all__ = ["GENERIC_RECORD_KEYS", "GenericSeeder", "SeedError"]

GENERIC_RECORD_KEYS = frozenset({"key", "workflow", "state", "id", "account"})
"""The keys a generic record may have (``key``, ``workflow`` and ``state`` are required)."""

_REF_FORMS = ("ref", "ref_id")


class SeedError(ValueError):
    """A record the seeder cannot read.

    Args:
        where: the path inside the record (``state.reporter``, ``workflow``), or ``""``.
        message: what is wrong, naming the record's key.
        index: the record's position in ``records:`` when the seeder knows it.
    """

    def __init__(self, where: str, message: str, *, index: int | None = None) -> None:
        super().__init__(message)
        self.where = where
        self.index = index


class GenericSeeder:
    """Seeds ``{key, workflow, state, id?, account?}`` records of any application.

    Implements :class:`turnframe.runtime.app.RecordSeeder` for applications that bring
    none (docs/scenario-format.md "Records").

    Args:
        registry: the application's workflows (a record's ``workflow`` must be one, and
            its ``state`` must load through that workflow's ``load_state``).
    """

    def __init__(self, registry: WorkflowRegistry) -> None:
        self._registry = registry

    def seed_order(self, records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """Return ``records`` ordered so that every referenced record comes before its user.

        The file's order is kept wherever references allow it.

        Raises:
            SeedError: for a record that is not a mapping, lacks a required key, has an
                unknown key, repeats a key, or refers to an unknown key or in a cycle.
        """
        by_key: dict[str, Mapping[str, Any]] = {}
        index: dict[str, int] = {}
        for i, record in enumerate(records):
            if not isinstance(record, Mapping):
                raise SeedError("", "a record is a mapping {key, workflow, state}", index=i)
            unknown = sorted(set(map(str, record)) - GENERIC_RECORD_KEYS)
            if unknown:
                raise SeedError(
                    unknown[0],
                    f"record {record.get('key', '?')}: unknown key {unknown[0]!r} "
                    f"(a record has {', '.join(sorted(GENERIC_RECORD_KEYS))})",
                    index=i,
                )
            for required in ("key", "workflow", "state"):
                if required not in record:
                    raise SeedError(
                        "", f"record {record.get('key', '?')}: {required!r} is required", index=i
                    )
            key = record["key"]
            if not isinstance(key, str) or not key:
                raise SeedError("key", f"record key {key!r} must be a non-empty string", index=i)
            if key in by_key:
                raise SeedError("key", f"record key {key!r} is used twice", index=i)
            by_key[key] = record
            index[key] = i
        ordered: list[Mapping[str, Any]] = []
        placed: set[str] = set()

        def place(key: str, chain: tuple[str, ...]) -> None:
            if key in placed:
                return
            if key in chain:
                raise SeedError(
                    "state",
                    f"records refer to each other in a cycle: {' -> '.join((*chain, key))}",
                    index=index[key],
                )
            record = by_key[key]
            for where, ref in _references(record.get("state"), "state"):
                if ref not in by_key:
                    raise SeedError(
                        where,
                        f"record {key}: {where} refers to unknown record {ref!r}",
                        index=index[key],
                    )
                place(ref, (*chain, key))
            placed.add(key)
            ordered.append(record)

        for key in by_key:
            place(key, ())
        return ordered

    def seed_state(
        self, record: Mapping[str, Any], refs: Mapping[str, CaseRef]
    ) -> tuple[str, JSONObject]:
        """Return ``(workflow, JSON state)`` with references replaced; check it loads.

        Raises:
            SeedError: for an unknown workflow, a state that is not a mapping, a reference
                not seeded yet, or a state the workflow's ``load_state`` refuses (its
                message is kept).
        """
        key = record.get("key", "?")
        workflow = record.get("workflow")
        if not isinstance(workflow, str) or workflow not in self._registry.names():
            known = ", ".join(self._registry.names())
            raise SeedError(
                "workflow", f"record {key}: unknown workflow {workflow!r} (known: {known})"
            )
        raw = record.get("state")
        if not isinstance(raw, Mapping):
            raise SeedError("state", f"record {key}: state must be a mapping")
        state = _resolve(raw, refs, "state")
        assert isinstance(state, dict)
        try:
            self._registry.workflow(workflow).typed(state)
        except (TurnframeError, ValueError, TypeError, KeyError, AttributeError) as exc:
            raise SeedError(
                "state",
                f"record {key}: the {workflow} workflow's load_state refused the state: "
                f"{type(exc).__name__}: {exc}",
            ) from exc
        return workflow, state


def _ref_of(value: Any) -> tuple[str, str] | None:
    """Return ``(form, key)`` when ``value`` is ``{ref: KEY}`` or ``{ref_id: KEY}``."""
    if isinstance(value, Mapping) and len(value) == 1:
        ((form, key),) = value.items()
        if form in _REF_FORMS and isinstance(key, str):
            return str(form), key
    return None


def _references(value: Any, where: str) -> list[tuple[str, str]]:
    """Return ``(path, key)`` for every reference inside ``value``."""
    ref = _ref_of(value)
    if ref is not None:
        return [(where, ref[1])]
    if isinstance(value, Mapping):
        return [r for k, v in value.items() for r in _references(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [r for i, v in enumerate(value) for r in _references(v, f"{where}[{i}]")]
    return []


def _resolve(value: Any, refs: Mapping[str, CaseRef], where: str) -> Any:
    """Return ``value`` as JSON with references replaced and dates as ISO strings."""
    ref = _ref_of(value)
    if ref is not None:
        form, key = ref
        case = refs.get(key)
        if case is None:
            raise SeedError(where, f"{where} refers to record {key!r}, which is not seeded")
        return str(case) if form == "ref" else case.case_id
    if isinstance(value, Mapping):
        return {str(k): _resolve(v, refs, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, refs, f"{where}[{i}]") for i, v in enumerate(value)]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value
