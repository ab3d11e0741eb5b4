"""Understanding: reads a message into a proposal (guide §5).

Only the interface and the scripted implementation ship so far; model-backed tasks plug
in behind :class:`Understander`.
"""

from turnframe.understand.base import ScriptedUnderstanding, Understander, UnderstandingResult
from turnframe.understand.brief import Brief, BriefCard, BriefRecord

__all__ = [
    "Brief",
    "BriefCard",
    "BriefRecord",
    "ScriptedUnderstanding",
    "Understander",
    "UnderstandingResult",
]
