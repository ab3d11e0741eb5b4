"""Why a card bound to a record cannot run now, and the sentence each reason is told with.

A click, or an inferred answer, on a card bound to a case (``spec.case`` set, not
``independent``) is refused as ``rejected:stale`` for one of three reasons
(docs/adr/0003-click-and-edit-in-one-turn.md rule 2,
docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 7, I16). The result code
stays ``stale`` for all three (clients and stored resolutions read it); the sentence says
which one holds, so the reply claims only what is true:

* ``moved``: the record's revision loaded for this turn is past the card's
  ``bound_revision`` (the record changed since the card was drawn);
* ``touched``: another act of this turn is planned (``READY``) on the card's record, so
  the card would confirm content this turn changes; the sentence says the message asks
  for the change, not that it was made, because it may still fail to commit (ADR 0003
  "Known gaps");
* ``claimed``: the client sent an ``expected_revision`` other than the card's binding (the
  record may well be unchanged: the client's claim is what differs).

When several hold, the first of that order is said: a fact about the stored record before
a plan of this message, before a claim of the client. Each sentence is true whatever else
holds. ``card_changed`` (rule 10: the commands the click compiled differ from those the
card showed) is the fourth way a card closes stale; its sentence is its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from turnframe.core.ids import CaseRef
from turnframe.core.interactions import InteractionSpec
from turnframe.runtime.plan import ClickInput

__all__ = ["STALE_SENTENCES", "StaleReason", "stale_reason"]

StaleReason = Literal["moved", "touched", "claimed", "card_changed"]
"""Why a card closes stale; the first three share the result code ``stale``."""

STALE_SENTENCES: dict[StaleReason, str] = {
    "moved": "stale_no_reissue",
    "touched": "stale_touched",
    "claimed": "stale_claimed",
    "card_changed": "card_changed",
}
"""The runtime sentence (``turnframe.runtime.copy`` key) each reason is told with. None
announces a fresh card, so each stays true if that card fails to persist (I6)."""


def stale_reason(
    spec: InteractionSpec, click: ClickInput | None, planned: Iterable[CaseRef]
) -> StaleReason | None:
    """Return why an answer to a card of ``spec`` is stale, or ``None`` if it is not.

    Args:
        spec: the card's payload; a card bound to no case, or ``independent``, is never
            stale by revision (a selection confirms nothing).
        click: the structured click, or ``None`` for an inferred answer (which has no
            revision of its own, so only ``touched`` can hold).
        planned: the cases of this turn's acts planned so far (``Reduction.ready``).

    Returns:
        ``moved``, ``touched`` or ``claimed``, the first that holds in that order (module
        docstring), else ``None``.
    """
    if spec.case is None or spec.independent:
        return None
    if click is not None and click.case_revision != spec.bound_revision:
        return "moved"
    if any(case == spec.case for case in planned):
        return "touched"
    claimed = click.response.expected_revision if click is not None else None
    if claimed is not None and claimed != spec.bound_revision:
        return "claimed"
    return None
