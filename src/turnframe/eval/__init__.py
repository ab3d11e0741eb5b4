"""The evaluation harness: message sets with expectations, per-task scores.

See docs/architecture.md "Evaluation".

``turnframe eval run DIR --model MODEL`` runs a set through the real pipeline; ``--model
oracle`` answers every task from the set's own expectations and must score 100%.
"""

from turnframe.eval.dataset import EvalCase, EvalFile, load_set
from turnframe.eval.models import KNOWN_MODELS, provider_from_spec
from turnframe.eval.oracle import OracleReading, oracle_provider
from turnframe.eval.run import EvalReport, Score, run_eval

__all__ = [
    "KNOWN_MODELS",
    "EvalCase",
    "EvalFile",
    "EvalReport",
    "OracleReading",
    "Score",
    "load_set",
    "oracle_provider",
    "provider_from_spec",
    "run_eval",
]
