"""What registration checks of a workflow, so a turn never finds it out (docs/architecture.md).

``WorkflowRegistry.register`` calls :func:`member_problems` and :func:`operation_problems`
before it takes a workflow, and :func:`hook_problems` for the optional
``registration_problems(locales)`` hook an authoring base class supplies; an
application checks the rest once every workflow is registered
(:func:`application_problems`: record arguments name registered workflows, every
locale it serves is covered). Each problem is one sentence naming the workflow, the
member and the fix; the registry raises them as one
:class:`~turnframe.core.errors.RegistryError`. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from turnframe.core.operations import ArgumentKind, ArgumentSpec, OperationSpec

__all__ = [
    "OPTIONAL_MEMBERS",
    "REQUIRED_MEMBERS",
    "application_problems",
    "hook_problems",
    "member_problems",
    "operation_problems",
]

REQUIRED_MEMBERS: dict[str, str] = {
    "name": 'a `name` (a str attribute or property): name = "ticket"',
    "version": 'a `version` (a str attribute or property): version = "1"',
    "operations": "def operations(self) -> tuple[OperationSpec, ...]",
    "load_state": "def load_state(self, data: JSONObject) -> State",
    "dump_state": "def dump_state(self, state: State) -> JSONObject",
    "project": "def project(self, state, today) -> WorkflowView",
    "offered": "def offered(self, view, actor) -> tuple[str, ...]",
    "compile": "def compile(self, request: CompileRequest) -> Compiled | Refusal",
    "policy": "def policy(self, state, command) -> CommandPolicy",
    "execute": "def execute(self, state, command, ctx) -> Execution",
    "validate": 'def validate(self, state, command, today, locale="en") -> Refusal | None',
    "render_receipt": "def render_receipt(self, event, state, locale) -> str | None",
    "candidate_label": "def candidate_label(self, case, state, locale) -> str",
    "search_text": "def search_text(self, state) -> str",
    "briefing": "def briefing(self, view) -> str",
    "ask_obligation": "def ask_obligation(self, view, obligation, locale) -> str",
    "ask_argument": "def ask_argument(self, operation, argument, locale) -> str",
}
"""Every member of ``WorkflowDefinition`` a workflow must have, with the fix to show.

The same names as the protocol's members less :data:`OPTIONAL_MEMBERS` (a test keeps
them equal)."""

OPTIONAL_MEMBERS = frozenset({"render_command", "select_prompt"})
"""``WorkflowDefinition`` members with safe defaults in ``ErasedWorkflow``."""

_DATA_MEMBERS = frozenset({"name", "version"})


def member_problems(definition: Any) -> list[str]:
    """Return one sentence per required member ``definition`` lacks or has in a wrong form.

    ``name`` and ``version`` must be non-empty strings; every other required member
    must be callable.
    """
    label = _label(definition)
    out = []
    for member, fix in REQUIRED_MEMBERS.items():
        try:
            value = getattr(definition, member)
        except AttributeError:
            kind = "attribute" if member in _DATA_MEMBERS else "method"
            out.append(f"workflow {label} has no `{member}` {kind}: add {fix}")
            continue
        if member in _DATA_MEMBERS:
            if not isinstance(value, str) or not value:
                out.append(
                    f"workflow {label}: `{member}` must be a non-empty str, got {value!r}: "
                    f"add {fix}"
                )
        elif not callable(value):
            out.append(f"workflow {label}: `{member}` is not callable: add {fix}")
    return out


def operation_problems(workflow: str, operations: object) -> list[str]:
    """Return one sentence per inconsistency of the operations a workflow declares.

    Checked: ``operations()`` returns ``OperationSpec`` values; within an operation,
    argument names are unique and non-empty, each kind is an ``ArgumentKind``, a
    ``CHOICE`` argument lists its choices, and only a ``RECORD`` argument names a
    ``record_workflow``.
    """
    if not isinstance(operations, Sequence) or isinstance(operations, str):
        return [
            f"workflow {workflow!r}: `operations()` must return a tuple of OperationSpec, "
            f"got {type(operations).__name__}"
        ]
    out = []
    for op in operations:
        if not isinstance(op, OperationSpec):
            out.append(
                f"workflow {workflow!r}: `operations()` returned {type(op).__name__}, not an "
                "OperationSpec: return OperationSpec(key=..., workflow=..., summary=...)"
            )
            continue
        seen: set[str] = set()
        for arg in op.arguments:
            out.extend(_argument_problems(workflow, op, arg, seen))
    return out


def _argument_problems(
    workflow: str, op: OperationSpec, arg: ArgumentSpec, seen: set[str]
) -> list[str]:
    where = f"workflow {workflow!r}, operation {op.key!r}"
    out = []
    if not arg.name:
        out.append(f"{where}: an argument has no name: give every ArgumentSpec a name")
    elif arg.name in seen:
        out.append(f"{where}: argument {arg.name!r} is declared twice: keep one ArgumentSpec")
    seen.add(arg.name)
    if not isinstance(arg.kind, ArgumentKind):
        out.append(
            f"{where}: argument {arg.name!r} has kind {arg.kind!r}: use one of "
            f"{', '.join(k.name for k in ArgumentKind)} (ArgumentKind)"
        )
    elif arg.kind is ArgumentKind.CHOICE and not arg.choices:
        out.append(f"{where}: choice argument {arg.name!r} lists no choices: add choices=(...)")
    elif (clash := _case_clash(arg.choices) or _case_clash(arg.literals)) is not None:
        out.append(
            f"{where}: argument {arg.name!r} declares {clash[0]!r} and {clash[1]!r}, which a "
            "user's words cannot tell apart (values are read without case): keep one"
        )
    elif arg.record_workflow is not None and arg.kind is not ArgumentKind.RECORD:
        out.append(
            f"{where}: argument {arg.name!r} names record_workflow "
            f"{arg.record_workflow!r} but is of kind {arg.kind.value}: use ArgumentKind.RECORD"
        )
    return out


def _case_clash(values: tuple[str, ...]) -> tuple[str, str] | None:
    """Return two of ``values`` that differ only in case, or ``None``."""
    seen: dict[str, str] = {}
    for value in values:
        folded = value.casefold()
        if folded in seen:
            return seen[folded], value
        seen[folded] = value
    return None


def hook_problems(definition: Any, locales: tuple[str, ...]) -> list[str]:
    """Return the problems the definition's optional ``registration_problems(locales)`` reports.

    Each is prefixed with the workflow's name unless it names it already. A hook that
    raises is itself a problem (so a broken hook fails registration, not a turn).
    """
    hook = getattr(definition, "registration_problems", None)
    if not callable(hook):
        return []
    label = _label(definition)
    try:
        found = [str(p) for p in hook(locales)]
    except Exception as exc:  # reported as a registration problem
        return [
            f"workflow {label}: `registration_problems` raised {type(exc).__name__}: {exc}: "
            "fix the hook"
        ]
    return [p if label in p else f"workflow {label}: {p}" for p in found]


def application_problems(
    workflows: Iterable[tuple[str, Sequence[OperationSpec]]],
    names: Iterable[str],
) -> list[str]:
    """Return a sentence per record argument naming a workflow the registry lacks."""
    known = set(names)
    out = []
    for workflow, operations in workflows:
        for op in operations:
            for arg in op.arguments:
                if arg.record_workflow is not None and arg.record_workflow not in known:
                    out.append(
                        f"workflow {workflow!r}, operation {op.key!r}: record argument "
                        f"{arg.name!r} names workflow {arg.record_workflow!r}, which is not "
                        f"registered: register it or fix record_workflow (registered: "
                        f"{', '.join(sorted(known))})"
                    )
    return out


def _label(definition: Any) -> str:
    name = getattr(definition, "name", None)
    return repr(name) if isinstance(name, str) and name else f"<{type(definition).__name__}>"
