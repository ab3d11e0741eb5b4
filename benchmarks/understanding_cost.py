"""Understanding cost: the critical path of a turn in call latencies, calls and prompt tokens.

Runs the evaluation set's messages through the real pipeline with the oracle's answers
behind a fixed-latency fake provider (every call takes exactly LATENCY seconds). The
critical path is the longest chain of calls each sent after the previous one came back
(``FixedLatencyProvider.critical_path``): independent calls run concurrently, so it counts
the chain's dependent stages, not its calls. The wall time divided by one call's latency
is shown beside it (it adds the code's own time between calls).

Targets: critical path low ≤ 2, medium ≤ 3, high ≤ 5 call latencies (issue 9; the contract
per effort is in docs/architecture.md "Effort"); prompt tokens at turn 50 of a conversation
divided by turn 5 ≤ 1.05 (briefs come from projections, not transcripts). The path counts
understanding's calls only: the reply writer's (acknowledge, then review at medium and
high) come after the commit and are not in it.

Usage: python benchmarks/understanding_cost.py [--json] [--latency S] [--cases N] [--turns N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from turnframe.eval.dataset import EvalCase, load_set
from turnframe.eval.oracle import OracleReading, oracle_provider
from turnframe.providers import FixedLatencyProvider
from turnframe.testing.scenario.model import ScenarioModel
from turnframe.testing.scenario.runner import run_scenario
from turnframe.understand import ModelUnderstanding, UnderstandingResult

ROOT = Path(__file__).resolve().parents[1]
EVAL_SET = ROOT / "eval" / "travel"
TARGETS = {"low": 2, "medium": 3, "high": 5}


async def _measure(case: EvalCase, data: Any, effort: str, latency: float) -> dict[str, float]:
    reading = OracleReading(case)
    figures: dict[str, float] = {}

    async def reader(run: Any, turn: Any, brief: Any) -> UnderstandingResult:
        provider = FixedLatencyProvider(
            oracle_provider(
                reading,
                lambda key: str(run.with_handles(brief, key)),
                lambda ref: str(run.with_handles(brief, f"card:{ref}")),
            ),
            latency=latency,
        )
        started = time.perf_counter()
        result = await ModelUnderstanding(provider, effort=effort).understand(brief)
        figures["wall"] = (time.perf_counter() - started) / latency
        figures["path"] = provider.critical_path()
        figures["calls"] = provider.calls
        figures["prompt_tokens"] = provider.prompt_tokens
        return result

    scenario = ScenarioModel.model_validate(
        {
            "name": case.id,
            "sample": data.sample,
            "today": data.today,
            "actor": data.actor,
            "records": data.records,
            "turns": [{"text": case.text, "understanding": "model", "effort": effort}],
        }
    )
    await run_scenario(scenario, case.id, model_reader=reader)
    return figures


async def _conversation(turns: int, latency: float) -> dict[str, float]:
    """Prompt tokens per turn over one long conversation (the same two requests alternating)."""
    sets = load_set(EVAL_SET)
    data = sets[0][1]
    texts = [
        ("Rename the Porto trip to Summer Break", "Summer Break"),
        ("Rename the Porto trip to Autumn", "Autumn"),
    ]
    tokens: list[int] = []

    def case(n: int) -> EvalCase:
        text, name = texts[n % 2]
        return EvalCase.model_validate(
            {
                "id": f"conv{n}",
                "text": text,
                "acts": [
                    {"unit": text, "op": "trip.rename", "target": ["T3"], "args": {"name": name}}
                ],
            }
        )

    async def reader(run: Any, turn: Any, brief: Any) -> UnderstandingResult:
        n = len(tokens)
        provider = FixedLatencyProvider(
            oracle_provider(
                OracleReading(case(n)),
                lambda key: str(run.with_handles(brief, key)),
                lambda ref: str(run.with_handles(brief, f"card:{ref}")),
            ),
            latency=latency,
        )
        result = await ModelUnderstanding(provider, effort="low").understand(brief)
        tokens.append(provider.prompt_tokens)
        return result

    scenario = ScenarioModel.model_validate(
        {
            "name": "conversation",
            "sample": data.sample,
            "today": data.today,
            "actor": data.actor,
            "records": data.records,
            "turns": [
                {"text": case(n).text, "understanding": "model", "effort": "low"}
                for n in range(turns)
            ],
        }
    )
    await run_scenario(scenario, "conversation", model_reader=reader)
    return {
        "turn_5": tokens[4],
        f"turn_{turns}": tokens[turns - 1],
        "ratio": round(tokens[turns - 1] / tokens[4], 4),
    }


async def run(latency: float, cases: int, turns: int) -> dict[str, Any]:
    """Return the benchmark's figures."""
    chosen = [(c, data) for _file, data in load_set(EVAL_SET) for c in data.cases if not c.before][
        :cases
    ]
    report: dict[str, Any] = {"latency_s": latency, "messages": len(chosen), "efforts": {}}
    for effort in ("low", "medium", "high"):
        rows = [await _measure(c, data, effort, latency) for c, data in chosen]
        paths = [r["path"] for r in rows]
        report["efforts"][effort] = {
            "critical_path_mean": round(statistics.mean(paths), 2),
            "critical_path_max": round(max(paths), 2),
            "wall_over_latency_mean": round(statistics.mean(r["wall"] for r in rows), 2),
            "target": TARGETS[effort],
            "calls_per_turn": round(statistics.mean(r["calls"] for r in rows), 2),
            "prompt_tokens_per_turn": round(statistics.mean(r["prompt_tokens"] for r in rows), 1),
        }
    report["conversation"] = await _conversation(turns, latency)
    return report


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table (or one JSON object with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per call")
    parser.add_argument("--cases", type=int, default=1000, help="messages of the set to use")
    parser.add_argument("--turns", type=int, default=50, help="conversation length")
    args = parser.parse_args(argv)
    report = anyio.run(run, args.latency, args.cases, args.turns)
    if args.json:
        print(json.dumps(report))
        return 0
    print(
        f"understanding cost · fixed latency {args.latency}s per call · {report['messages']} messages"
    )
    print(
        f"{'effort':<8} {'path mean':>9} {'path max':>9} {'target':>7} {'wall/lat':>9} "
        f"{'calls/turn':>11} {'prompt tok/turn':>16}"
    )
    for effort, row in report["efforts"].items():
        print(
            f"{effort:<8} {row['critical_path_mean']:>9} {row['critical_path_max']:>9} "
            f"{'≤ ' + str(row['target']):>7} {row['wall_over_latency_mean']:>9} "
            f"{row['calls_per_turn']:>11} {row['prompt_tokens_per_turn']:>16}"
        )
    conv = report["conversation"]
    print(f"prompt tokens at turn {args.turns} / turn 5: {conv['ratio']} (target ≤ 1.05)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
