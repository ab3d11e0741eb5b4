"""Understanding: reads a message into a proposal (docs/architecture.md "Understanding").

:class:`ModelUnderstanding` runs the chain of small verified tasks (one module per task,
chained only by :mod:`turnframe.understand.pipeline`); :class:`ScriptedUnderstanding`
serves proposals from a script for tests and the demo.
"""

from turnframe.understand.base import ScriptedUnderstanding, Understander, UnderstandingResult
from turnframe.understand.brief import (
    AskedFor,
    Brief,
    BriefCard,
    BriefingBudget,
    BriefPending,
    BriefRecord,
    DomainCheck,
    StepListener,
    brief_from_json,
    brief_to_json,
)
from turnframe.understand.effort import EffortProfile, Merge, effort_profile
from turnframe.understand.pipeline import ModelUnderstanding

__all__ = [
    "AskedFor",
    "Brief",
    "BriefCard",
    "BriefPending",
    "BriefRecord",
    "BriefingBudget",
    "DomainCheck",
    "EffortProfile",
    "Merge",
    "ModelUnderstanding",
    "ScriptedUnderstanding",
    "StepListener",
    "Understander",
    "UnderstandingResult",
    "brief_from_json",
    "brief_to_json",
    "effort_profile",
]
