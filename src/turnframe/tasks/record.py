"""One record per model call, for the turn's replay record (I20)."""

from __future__ import annotations

from dataclasses import dataclass

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import JSONObject
from turnframe.providers.base import Enforcement, ModelRequest, ModelResponse

__all__ = ["CallRecord", "VoteRound"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class VoteRound:
    """One voted decision (docs/adr/0018-decoder-enforceable-schemas.md).

    Attributes:
        task: the task's name.
        reads: the answers that passed and were compared.
        distinct: how many different readings they gave (1: the votes agreed).
        collapsed: votes not sent because their request equalled an earlier vote's.
        failed: votes that gave no passing answer.
    """

    task: str
    reads: int
    distinct: int
    collapsed: int = 0
    failed: int = 0

    @property
    def agreed(self) -> bool:
        """Whether every read gave the same reading."""
        return self.distinct <= 1

    def to_json(self) -> JSONObject:
        """Return the round as JSON for the turn's trace."""
        return {
            "task": self.task,
            "reads": self.reads,
            "distinct": self.distinct,
            "collapsed": self.collapsed,
            "failed": self.failed,
        }


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CallRecord:
    """A model call: the prompt it ran under, who served it, what it cost and its verdict.

    Attributes:
        task: the task's name.
        attempt: ``first``, ``resend``, ``repair``, ``vote``, ``tiebreak`` or ``escalate``.
        depth: its depth in the turn's chain of dependent calls.
        request: the request sent.
        response: the response, ``None`` when the call failed.
        verdict: ``ok``, ``invalid: <exact error>``, ``resend: <why>`` or ``error: <class>``.
        ended_ms: when the call ended, in ms since its runner started (monotonic); with
            the latency it places the call in time, so concurrent calls are not summed.
        sampling: how this read was sampled (vote, temperature, seed, rotation), or
            ``None`` for a call the runner did not sample.
    """

    task: str
    attempt: str
    depth: int
    request: ModelRequest
    response: ModelResponse | None
    verdict: str
    ended_ms: float = 0.0
    sampling: JSONObject | None = None

    def to_json(self) -> JSONObject:
        """Return the record as JSON: prompt, model, tokens, latency, verdict, response."""
        response = self.response
        return {
            "task": self.task,
            "attempt": self.attempt,
            "depth": self.depth,
            "prompt_id": self.request.prompt_id,
            "fingerprint": self.request.fingerprint(),
            "prompt": [{"role": m.role, "content": m.content} for m in self.request.messages],
            "model": response.model if response else None,
            "prompt_tokens": response.usage.prompt_tokens if response else 0,
            "completion_tokens": response.usage.completion_tokens if response else 0,
            "latency_ms": round(response.latency_ms, 3) if response else 0.0,
            "ended_ms": round(self.ended_ms, 3),
            "verdict": self.verdict,
            "sampling": self.sampling,
            "reasoning": self.request.reasoning,
            "temperature": self.request.temperature,
            "seed": self.request.seed,
            "response": (
                {
                    "text": response.text,
                    "stop": response.stop.value,
                    "model": response.model,
                    "usage": {
                        "prompt_tokens": response.usage.prompt_tokens,
                        "completion_tokens": response.usage.completion_tokens,
                    },
                    # How much of the schema the vendor enforced (vendor adapters only).
                    **(
                        {
                            "enforcement": response.enforcement.value,
                            "unenforced": list(response.unenforced),
                        }
                        if response.enforcement is not Enforcement.NONE
                        else {}
                    ),
                }
                if response
                else None
            ),
        }
