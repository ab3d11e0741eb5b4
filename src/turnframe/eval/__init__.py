"""The evaluation harness: message sets with expectations, per-task scores.

See docs/architecture.md "Evaluation".

``turnframe eval run DIR --model MODEL`` runs a set through the real pipeline; ``--model
oracle`` answers every task from the set's own expectations and must score 100%.
``--judge`` grades each reply, ``--out`` keeps the run for ``turnframe eval compare`` and
``--html`` writes a report (docs/evals.md).
"""

from turnframe.eval.compare import Comparison, compare_runs, read_run
from turnframe.eval.dataset import EvalCase, EvalFile, load_set
from turnframe.eval.judge import JudgeResult, JudgeVote, judge_reply
from turnframe.eval.models import KNOWN_MODELS, provider_from_spec
from turnframe.eval.oracle import OracleReading, oracle_provider
from turnframe.eval.report_html import render_html
from turnframe.eval.run import EvalReport, JudgeSetup, Score, run_eval

__all__ = [
    "KNOWN_MODELS",
    "Comparison",
    "EvalCase",
    "EvalFile",
    "EvalReport",
    "JudgeResult",
    "JudgeSetup",
    "JudgeVote",
    "OracleReading",
    "Score",
    "compare_runs",
    "judge_reply",
    "load_set",
    "oracle_provider",
    "provider_from_spec",
    "read_run",
    "render_html",
    "run_eval",
]
