"""The authoring kit: less to write for a workflow (docs/authoring.md).

:class:`Workflow` (the base class), :class:`TypedCommand` (the command base whose fields
derive the argument specs), :class:`Op` and :class:`Offer` (the operation and offer
tables), :class:`Refused` (a refusal raised inside a check) and the policy shorthands
:data:`LOW`, :data:`REVERSIBLE` and :func:`confirm`. Pure and synchronous.
"""

from turnframe.core.authoring.base import Workflow
from turnframe.core.authoring.command import TypedCommand
from turnframe.core.authoring.fields import Email, Part, arg
from turnframe.core.authoring.state_json import load_dataclass
from turnframe.core.authoring.table import LOW, REVERSIBLE, Offer, Op, confirm
from turnframe.core.authoring.words import GENERIC_WORDS, Refused

__all__ = [
    "GENERIC_WORDS",
    "LOW",
    "REVERSIBLE",
    "Email",
    "Offer",
    "Op",
    "Part",
    "Refused",
    "TypedCommand",
    "Workflow",
    "arg",
    "confirm",
    "load_dataclass",
]
