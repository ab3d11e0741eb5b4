"""What registration checks on a ``Workflow`` (docs/authoring.md#registration).

:func:`problems_of` lists every declaration of a workflow that does not hold together;
each sentence names the workflow, the member and the fix. ``WorkflowRegistry.register``
refuses a workflow with any.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from turnframe.core.authoring.fields import computed_fields
from turnframe.core.authoring.phases import field_phases, known_phases
from turnframe.core.authoring.receipts import placeholders
from turnframe.core.authoring.table import Offer
from turnframe.core.authoring.words import GENERIC_WORDS, in_locale, language
from turnframe.core.errors import UsageError

if TYPE_CHECKING:
    from turnframe.core.authoring.base import Workflow

__all__ = ["problems_of"]

_KIT_KEYS = tuple(GENERIC_WORDS["en"])


def problems_of(workflow: Workflow[Any], locales: tuple[str, ...] = ()) -> list[str]:
    """Return the registration problems of ``workflow`` for an app serving ``locales``."""
    from turnframe.core.authoring.base import Workflow, is_typed_command

    name = workflow.name or type(workflow).__name__
    found: list[str] = []

    def problem(member: str, what: str, fix: str) -> None:
        found.append(f"workflow {name!r}, {member}: {what}; fix: {fix}")

    if not workflow.name:
        problem("name", "no name", "set name = '<workflow>'")
    if not workflow.version:
        problem("version", "no version", "set version = '<workflow>/1'")
    state_type = workflow.state_type
    if state_type is None or not dataclasses.is_dataclass(state_type):
        problem("state_type", "no state dataclass", "set state_type = <your state dataclass>")
        state_fields: set[str] = set()
    else:
        state_fields = {f.name for f in dataclasses.fields(state_type)}
    if type(workflow).execute is Workflow.execute:
        problem("execute", "not defined", "define execute(state, command, ctx) using self.emit")
    for attr, names in (
        ("label_fields", workflow.label_fields),
        ("search_fields", workflow.search_fields or ()),
        ("phase_field", (workflow.phase_field,)),
    ):
        for field_name in names:
            if state_fields and field_name not in state_fields:
                problem(attr, f"{field_name!r} is no field of the state", "name a state field")

    rows = {}
    for row in workflow.table:
        if not is_typed_command(row.command):
            problem(
                f"table[{row.command!r}]",
                "the command is not a TypedCommand with an operation",
                "derive it from TypedCommand with operation='<workflow>.<name>'",
            )
            continue
        if row.key in rows:
            problem(f"table[{row.key}]", "listed twice", "keep one row per operation")
        rows[row.key] = row
        if row.key.partition(".")[0] != workflow.name:
            problem(
                f"table[{row.key}]",
                "the key is not of this workflow",
                f"name it '{workflow.name}.<name>'",
            )
        policy_problem = row.policy.problem()
        if policy_problem:
            problem(f"table[{row.key}].policy", policy_problem, "declare a policy that holds (I17)")
        if not row.command.EVENTS:
            problem(
                f"{row.command.__name__}",
                "declares no event type",
                "add event='<workflow>.<what happened>' to its class keywords",
            )
        try:
            row.command.arguments()
        except UsageError as exc:
            problem(f"{row.command.__name__}", str(exc), "give the field an argument type")

    specs = {}
    try:
        specs = {spec.key: spec for spec in workflow.operations()}
    except UsageError as exc:
        problem("operations", str(exc), "fix the command's fields")
    for key, spec in specs.items():
        declared_row = rows.get(key)
        if declared_row is None:
            problem(
                f"operations[{key}]",
                "has no command class",
                f"add Op(<command>, ...) for {key} to table",
            )
            continue
        try:
            derived = {a.name: a for a in declared_row.command.arguments()}
        except UsageError:
            continue
        given = {a.name: a for a in spec.arguments}
        computed = computed_fields(declared_row.command)
        for arg_name in sorted((set(derived) ^ set(given)) - computed):
            where = "the spec" if arg_name in given else "the command"
            problem(
                f"operations[{key}].arguments",
                f"argument {arg_name!r} exists only in {where}",
                f"make the spec's arguments those of {declared_row.command.__name__}'s fields",
            )
        for arg_name in sorted(set(derived) & set(given)):
            a, b = given[arg_name], derived[arg_name]
            if (a.kind, a.required) != (b.kind, b.required):
                problem(
                    f"operations[{key}].arguments[{arg_name}]",
                    f"spec says {a.kind.value}/required={a.required}, the field "
                    f"{b.kind.value}/required={b.required}",
                    "derive the spec from the command (TypedCommand.arguments)",
                )

    by_type = field_phases(workflow) if workflow.phases else None
    for value in by_type or ():
        if value not in workflow.phases:
            problem(
                "phases",
                f"lacks {value!r}, which the type of {workflow.phase_field!r} allows",
                f"add {value!r} to phases (or drop phases: the type lists them)",
            )
    phases = known_phases(workflow)
    if phases is not None:
        known = ", ".join(phases)
        named = [(f"offers[{p!r}]", p) for p in workflow.offers]
        named += [(f"terminal[{p!r}]", p) for p in workflow.terminal]
        named += [(f"briefings[{p!r}]", p) for p in workflow.briefings]
        for member, phase_name in named:
            if phase_name not in phases:
                problem(
                    member,
                    f"{phase_name!r} is not a phase of the workflow (known: {known})",
                    _suggest(phase_name, phases, "declare it in phases"),
                )

    for phase, entries in workflow.offers.items():
        for entry in entries:
            key = entry.key if isinstance(entry, Offer) else entry
            if key not in specs:
                problem(
                    f"offers[{phase!r}]",
                    f"offers {key!r}, which has no command and policy",
                    f"add Op(<command>, ...) for {key} to table or drop the offer",
                )

    events: set[str] = set()
    for row in rows.values():
        events.update(row.command.EVENTS)
    events.update(workflow.extra_events)
    templated = type(workflow).render_receipt is Workflow.render_receipt
    # What render_receipt gives a template (receipt_params): the state's fields, label,
    # and the payload, which emit makes the command's fields plus payload_fields.
    checks_names = templated and type(workflow).receipt_params is Workflow.receipt_params
    payloads: dict[str, set[str]] = {}
    for row in rows.values():
        command_fields = {f.name for f in dataclasses.fields(cast(Any, row.command))}
        for event in row.command.EVENTS:
            payloads.setdefault(event, set()).update(command_fields)
    for event, keys in workflow.payload_fields.items():
        payloads.setdefault(event, set()).update(keys)
    silent = set(workflow.silent)
    declared = tuple(workflow.locales)
    for locale in locales:
        if in_locale(dict.fromkeys(declared, True), locale) is None:
            problem(
                "locales",
                f"the application serves {locale!r}",
                f"add {locale!r} to locales and word it",
            )
    for locale in declared:
        templates = in_locale(workflow.receipts, locale) or {}
        for event in sorted(events - silent) if templated else ():
            if event not in templates:
                problem(
                    f"receipts[{locale!r}]",
                    f"no template for event {event!r}",
                    f"add receipts[{locale!r}][{event!r}] or list {event!r} in silent",
                )
        for event, template in templates.items():
            if event not in events:
                problem(
                    f"receipts[{locale!r}][{event!r}]",
                    "no command emits this event type",
                    "correct the event type or declare it on a command",
                )
            elif event in silent:
                problem(f"receipts[{locale!r}][{event!r}]", "the event is also silent", "keep one")
            try:
                names = placeholders(template)
            except ValueError as exc:
                problem(
                    f"receipts[{locale!r}][{event!r}]", f"bad template ({exc})", "fix the braces"
                )
                continue
            if not checks_names or event not in events:
                continue
            available = state_fields | {"label"} | payloads.get(event, set())
            for missing in sorted(set(names) - available, key=names.index):
                problem(
                    f"receipts[{locale!r}][{event!r}]",
                    f"names {{{missing}}}, which neither the state nor the event's payload "
                    f"holds (available: {', '.join(sorted(available))})",
                    _suggest(
                        missing,
                        sorted(available),
                        f"add {missing!r} to payload_fields[{event!r}] if execute puts it "
                        "in the payload",
                    ),
                )
        words = in_locale(workflow.words, locale) or {}
        kit = in_locale(GENERIC_WORDS, locale) or {}
        for key in _KIT_KEYS:
            if key not in words and key not in kit:
                problem(
                    f"words[{locale!r}]",
                    f"no sentence for {key!r}",
                    f"add words[{locale!r}][{key!r}]",
                )
        for other in declared:
            for key in sorted(set(in_locale(workflow.words, other) or {}) - set(words)):
                if key not in kit:
                    problem(
                        f"words[{locale!r}]",
                        f"lacks {key!r} (worded in {other!r})",
                        f"add words[{locale!r}][{key!r}]",
                    )
        if language(locale) != "en":
            for key, spec in specs.items():
                if not in_locale(spec.summaries, locale):
                    problem(
                        f"table[{key}].summaries",
                        f"no summary in {locale!r}",
                        f"add summaries={{{locale!r}: ...}}",
                    )
                for argument in spec.arguments:
                    if not in_locale(argument.labels, locale):
                        problem(
                            f"table[{key}].arguments[{argument.name}]",
                            f"no label in {locale!r}",
                            f"add arg(labels={{{locale!r}: ...}}) to the field",
                        )
    return found


def _suggest(name: str, known: Iterable[str], otherwise: str) -> str:
    """Return the fix "did you mean 'open'?" for a close match of ``name``, else ``otherwise``."""
    close = difflib.get_close_matches(name, list(known), n=1)
    if close:
        return f"did you mean {close[0]!r}? (else {otherwise})"
    return otherwise
