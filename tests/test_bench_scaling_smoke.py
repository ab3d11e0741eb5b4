"""The scaling benchmark runs, its turns commit, and its report has its shape (never timing)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "scaling.py"
ROW_KEYS = {
    "cpu_median_ms",
    "cpu_p90_ms",
    "wall_median_ms",
    "wall_p90_ms",
    "bytes_per_turn",
    "ratio_to_smallest",
    "n",
    "committed",
    "seed_s",
    "brief_records",
    "brief_cut",
}


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scaling_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_quick_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    assert bench.main(["--quick", "--json", "--stores", "sqlite,postgres"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)  # exactly one JSON object on stdout
    quick = bench.QUICK
    measured = ["sqlite"]
    if os.environ.get("TURNFRAME_TEST_POSTGRES_DSN"):
        measured.append("postgres")
    else:
        assert "skipped" in report["stores"]["postgres"]
        assert "PostgreSQL rows skipped" in captured.err
    for kind in measured:
        figures = report["stores"][kind]
        assert [row["records"] for row in figures["records"]] == list(quick["sizes"])
        assert [row["turn"] for row in figures["conversation"]] == [5, quick["history_turns"]]
        for row in (*figures["records"], *figures["conversation"]):
            assert set(row) - {"records", "turn"} == ROW_KEYS
            assert row["n"] == row["committed"] == quick["turns"]
            for key in ("cpu_median_ms", "cpu_p90_ms", "wall_median_ms", "wall_p90_ms"):
                assert isinstance(row[key], int | float) and row[key] > 0
            assert row["cpu_p90_ms"] >= row["cpu_median_ms"]
            assert isinstance(row["bytes_per_turn"], int) and row["bytes_per_turn"] >= 0
        assert figures["records"][0]["ratio_to_smallest"] == 1.0
        assert figures["conversation"][0]["ratio_to_smallest"] == 1.0
    # the keys are always present; quick sizes measure neither 10,000 nor 50,000
    assert report["ratio_10000_over_10"] is None
    assert report["ratio_turn50000_over_turn5"] is None
    assert isinstance(report["ratio_long_over_short_turn"], float)
    assert report["targets"]["ratio_max"] == 1.2
    config = report["config"]
    for key in ("git", "python", "platform", "history_build", "bytes", "cpu"):
        assert isinstance(config[key], str) and config[key]
    assert config["reference_loop_ms"] > 0


def test_table_names_the_rows(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    argv = ["--stores", "sqlite", "--sizes", "10,20", "--history-turns", "12"]
    assert bench.main([*argv, "--turns", "1", "--warmup", "0"]) == 0
    out = capsys.readouterr().out
    for words in ("records 10", "records 20", "turn 5", "turn 12", "reference loop"):
        assert words in out


def test_filler_names_are_distinct_and_never_the_turns_words() -> None:
    bench = _load()
    records = bench.filler_records(3_000)
    names = [r.get("name") or r["full_name"] for r in records]
    assert len(set(names)) == len(names) == 3_000
    message_words = set().union(*(bench._words(m) for m in bench.MESSAGES))
    for name in names:
        assert not bench._words(name) & message_words, name
    trips = [r for r in records if r["workflow"] == "trip"]
    assert len(trips) == 1_000 and all(r["travelers"] for r in trips)


def test_vocabulary_check_catches_a_colliding_word(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _load()
    monkeypatch.setattr(bench, "CITIES", (*bench.CITIES, "Lisbon"))
    with pytest.raises(ValueError, match="lisbon"):
        bench.filler_records(10)


def test_bulk_history_refuses_an_unclassified_per_turn_table() -> None:
    bench = _load()
    columns = {
        "turns": ["pos", "turn_id", "account", "conversation_id", "seq", "phase"],
        "replays": ["account", "turn_id", "record"],
        "plans": ["turn_id", "plan"],
    }
    with pytest.raises(RuntimeError, match="plans"):
        bench._copy_statements("sqlite", columns, "?")
    del columns["plans"]
    statements = bench._copy_statements("sqlite", columns, "?")
    assert [s.split(" INSERT INTO ")[1].split()[0] for s in statements] == ["turns", "replays"]


def test_bulk_history_refuses_a_conversation_column_it_would_leave_stale() -> None:
    bench = _load()
    columns = {
        "turns": ["pos", "turn_id", "account", "conversation_id", "seq"],
        "conversations": ["account", "conversation_id", "state", "last_seq"],
    }
    with pytest.raises(RuntimeError, match="last_seq"):
        bench._copy_statements("sqlite", columns, "?")


def test_timed_turns_brief_only_what_they_are_about(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The measured turns never list the whole account, on the default path or with targets.

    The default measures ``in_view=None`` (the default view of
    docs/adr/0020-what-a-brief-shows.md, rule 7: the 10-record account briefed whole,
    a larger one cut and marked); ``--in-view targets`` passes the records on screen.
    """
    from turnframe.runtime import Runtime
    from turnframe.store.sqlite import SqliteStore

    seen: list[object] = []
    listed: list[int] = []
    run_turn, list_cases = Runtime.run_turn, SqliteStore.list_cases

    async def spy_turn(self: Runtime, *args: object, **kw: object) -> object:
        seen.append(kw.get("in_view"))
        return await run_turn(self, *args, **kw)  # type: ignore[arg-type]

    async def spy_list(self: SqliteStore, account: str) -> object:
        listed.append(1)
        return await list_cases(self, account)

    monkeypatch.setattr(Runtime, "run_turn", spy_turn)
    monkeypatch.setattr(SqliteStore, "list_cases", spy_list)
    bench = _load()
    for extra, default_path in (([], True), (["--in-view", "targets"], False)):
        seen.clear()
        assert bench.main(["--quick", "--json", "--stores", "sqlite", *extra]) == 0
        report = json.loads(capsys.readouterr().out)
        assert seen and all((v is None) is default_path for v in seen)
        assert not listed
        small, large = report["stores"]["sqlite"]["records"]
        if default_path:
            assert not small["brief_cut"] and small["brief_records"] == small["records"]
            assert large["brief_cut"] and large["brief_records"] < large["records"]
        else:
            assert not small["brief_cut"] and not large["brief_cut"]


def test_fresh_words_are_new_every_turn_and_find_no_record() -> None:
    bench = _load()
    assert bench.message(3) == bench.MESSAGES[1] and bench.message(4) == bench.MESSAGES[0]
    fresh = [bench.message(step, "fresh") for step in range(1, 200)]
    added = [
        bench._words(m) - bench._words(bench.MESSAGES[step % 2])
        for step, m in enumerate(fresh, start=1)
    ]
    assert all(len(a) == 1 for a in added)
    assert len(set().union(*added)) == len(added)  # no word of one turn in another
    parts = bench._filler_parts()
    for (word,) in added:
        assert not any(word in p for p in parts), word
    with pytest.raises(ValueError, match="words"):
        bench.message(1, "stale")


def test_vocabulary_check_catches_a_record_word_a_fresh_word_could_meet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = _load()
    monkeypatch.setattr(bench, "LAST", (*bench.LAST, "Zqx"))
    with pytest.raises(ValueError, match="zq"):
        bench.filler_records(10)


def test_fresh_words_json_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from turnframe.runtime import Runtime

    texts: list[tuple[str, str]] = []
    run_turn = Runtime.run_turn

    async def spy(
        self: Runtime, actor: object, conversation: str, turn: object, **kw: object
    ) -> object:
        texts.append((actor.account, turn.text))  # type: ignore[attr-defined]
        return await run_turn(self, actor, conversation, turn, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Runtime, "run_turn", spy)
    bench = _load()
    assert bench.main(["--quick", "--json", "--stores", "sqlite", "--words", "fresh"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["config"]["words"] == "fresh"
    assert "ratio_10000_over_10" in report
    for row in report["stores"]["sqlite"]["records"]:
        assert row["n"] == row["committed"] == bench.QUICK["turns"]
    fresh = [(account, text.split()[-1]) for account, text in texts]
    assert fresh and all(w.startswith("zq") and w.endswith("x") for _, w in fresh)
    assert len(set(fresh)) == len(fresh)  # no account's turn repeats a word of its own
