"""Target resolution: opaque handles to authorised cases (I1, I8).

See docs/architecture.md "One turn" step 7, ADR 0001.

Only :class:`Exact` reaches compilation. :class:`Ambiguous` never resolves to a
candidate by recency, order, confidence or plausibility.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import CaseRef

__all__ = [
    "Ambiguous",
    "Exact",
    "NotFound",
    "TargetCandidate",
    "TargetResolution",
    "Unauthorized",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TargetCandidate:
    """One record a mention could mean, with the workflow's distinguishing label (I7).

    Attributes:
        case: the server-side case.
        label: the workflow's candidate label (tells homonyms apart).
    """

    case: CaseRef
    label: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Exact:
    """The mention names exactly one authorised case.

    Attributes:
        case: the case.
        new: the case is being created by this act (no state yet).
    """

    case: CaseRef
    new: bool = False
    kind: Literal["exact"] = "exact"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Ambiguous:
    """The mention matches several candidates; a SelectTarget card must ask (ADR 0001 rule 3).

    Attributes:
        candidates: at least two candidates, in the directory's label order.
    """

    candidates: tuple[TargetCandidate, ...]
    kind: Literal["ambiguous"] = "ambiguous"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class NotFound:
    """Nothing matched; the user is asked again.

    Attributes:
        reason: ``"no_target"``, ``"unknown_handle"``, ``"no_match"`` or ``"no_fit"``
            (the words named records, but none on which the operation is on offer now).
        sentence: the domain's sentence for ``"no_fit"`` (empty: the runtime's own).
    """

    reason: str = "no_match"
    sentence: str = ""
    kind: Literal["not_found"] = "not_found"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Unauthorized:
    """The record exists but the actor may not address it.

    Reported to the user exactly like :class:`NotFound` so existence does not leak.
    """

    kind: Literal["unauthorized"] = "unauthorized"


TargetResolution: TypeAlias = Exact | Ambiguous | NotFound | Unauthorized
"""The four outcomes of resolving a :class:`~turnframe.core.acts.ProposedTarget`."""
