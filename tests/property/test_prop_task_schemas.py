"""Every task schema carries every rule a decoder can enforce (I2, docs/adr/0018).

For random briefs (messages of 1–90 words with punctuation, random units, records in
view, cards on screen, every travel operation): every task schema is strict at every
object level, every id is an enum (or const) of the values on offer, every word pointer
is bounded by the message, and a value the task's code check would reject for an id or
pointer reason — an unknown or self-referring unit, a handle, option, argument, act or
step not on offer, a word past the message or in another unit's words — is rejected by
the schema itself (``jsonschema``), so a constrained decoder can never produce it.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core.operations import ArgumentKind, OperationSpec
from turnframe.samples.travel import travel_application
from turnframe.tasks.schema import ENUM_LIMIT, strict_problems, validate
from turnframe.tasks.task import Task
from turnframe.understand.brief import Brief, BriefCard, BriefRecord
from turnframe.understand.coverage import coverage_task, gaps
from turnframe.understand.cross_check import STEPS, cross_check_task
from turnframe.understand.extract import extract_task
from turnframe.understand.locate import locate_task
from turnframe.understand.merged import ActOffer, merged_task
from turnframe.understand.route import route_task
from turnframe.understand.segment import segment_task
from turnframe.understand.units import UNIT_KINDS, Unit
from turnframe.understand.verify import verify_task
from turnframe.understand.words import Words

_REGISTRY = travel_application().registry
OPERATIONS: tuple[OperationSpec, ...] = tuple(
    op for name in _REGISTRY.names() for op in _REGISTRY.workflow(name).operations()
)
ID_FIELDS = {
    "id",
    "unit",
    "continues",
    "corrects",
    "cancels",
    "interaction",
    "option",
    "act",
    "step",
    "argument",
    "record",
    "literal",
    "choice",
    "kind",
    "problem",
    "verdict",
    "grounding",
    "topic",
}
POINTERS = {"from", "to"}
TOKENS = ["Add", "the", "Porto", "trip,", "rename", "it", "to", "Summer.", "no", "—", "x"]


@st.composite
def briefs(draw: Any) -> tuple[Brief, Words, list[Unit]]:
    n_words = draw(st.integers(min_value=1, max_value=90))
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**16)))
    words = Words(tuple(rng.choice(TOKENS) for _ in range(n_words)))
    cuts = sorted(rng.sample(range(n_words), min(n_words, rng.randint(1, 6))))
    units: list[Unit] = []
    for n, start in enumerate(cuts):
        end = (cuts[n + 1] - 1) if n + 1 < len(cuts) else n_words - 1
        end = rng.randint(start, end)  # leaves words no unit holds
        kind = rng.choice(UNIT_KINDS)
        units.append(Unit(id=f"u{n + 1}", kind=kind, start=start, end=end))
    ops = draw(
        st.lists(st.sampled_from(OPERATIONS), min_size=1, max_size=6, unique_by=lambda o: o.key)
    )
    records = tuple(
        BriefRecord(
            handle=f"h{n}",
            workflow=rng.choice(["trip", "traveler", "manifest"]),
            label=f"Record {n}",
            phase="active",
            offered=tuple(o.key for o in ops),
        )
        for n in range(draw(st.integers(min_value=0, max_value=5)))
    )
    cards = tuple(
        BriefCard(
            interaction_id=f"card{n}",
            kind="select_target",
            prompt="Which one?",
            options=tuple((f"o{n}{m}", f"Option {m}") for m in range(rng.randint(1, 3))),
        )
        for n in range(draw(st.integers(min_value=0, max_value=2)))
    )
    brief = Brief(
        turn_id="t1",
        text=" ".join(words.tokens),
        locale="en",
        today="2026-05-01",
        records=records,
        creatable=tuple(o.key for o in ops if o.creates_case),
        cards=cards,
        operations=tuple(ops),
        topics=("baggage_allowance", "trip_summary"),
    )
    return brief, words, units


def _tasks(brief: Brief, words: Words, units: list[Unit]) -> list[Task]:
    routed = [u for u in units if u.kind != "other"] or units[:1]
    tasks = [
        segment_task(brief, words, votes=3),
        coverage_task(words, units, gaps(words, units), cards=bool(brief.cards)),
        route_task(brief, words, routed, units),
        locate_task(words, units[0], "rename", brief.records),
        cross_check_task(
            words,
            [{"id": f"a{n}"} for n in range(1, 4)],
            steps={"a1": STEPS, "a2": ("extract",), "a3": ()},
        ),
    ]
    offers = {
        spec.key: ActOffer(
            spec=spec,
            candidates=None if spec.creates_case else brief.records,
            record_candidates={
                a.name: list(brief.records) for a in spec.arguments if a.kind is ArgumentKind.RECORD
            },
        )
        for spec in brief.operations
    }
    # The merged reads of low and medium effort are as strict (docs/architecture.md "Effort").
    tasks.append(merged_task(brief, words, offers=None, check=lambda a: None, votes=3))
    tasks.append(merged_task(brief, words, offers=offers, check=lambda a: None))
    for spec in brief.operations:
        candidates = {
            a.name: list(brief.records) for a in spec.arguments if a.kind is ArgumentKind.RECORD
        }
        tasks.append(extract_task(words, units[0], units, spec, "en", candidates))
        tasks.append(
            verify_task(
                words,
                units[0],
                spec,
                "en",
                [r.label for r in brief.records] or "(a new record)",
                {},
                asked=None,
                hypothetical=False,
                think_field=True,
            )
        )
    return tasks


def _walk(schema: Any, name: str | None = None) -> Any:
    """Yield (property name, subschema) for every property at every level."""
    if isinstance(schema, dict):
        if name is not None:
            yield name, schema
        for key, sub in schema.get("properties", {}).items():
            yield from _walk(sub, key)
        if isinstance(schema.get("items"), dict):
            yield from _walk(schema["items"], name and f"{name}[]")
        for sub in schema.get("anyOf", []):
            yield from _walk(sub, name)


def _values(schema: Any) -> set[Any] | None:
    """Return the finite set a scalar schema allows (``None``: an integer range)."""
    if "const" in schema:
        return {schema["const"]}
    if "enum" in schema:
        return set(schema["enum"])
    if "anyOf" in schema:
        out: set[Any] = set()
        for sub in schema["anyOf"]:
            values = _values(sub)
            if values is None:
                return None
            out |= values
        return out
    if schema.get("type") == "null":
        return {None}
    return None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(briefs())
def test_every_task_schema_is_strict_and_offers_only_what_is_on_offer(
    drawn: tuple[Brief, Words, list[Unit]],
) -> None:
    brief, words, units = drawn
    for task in _tasks(brief, words, units):
        assert strict_problems(task.schema) == [], task.name
        for name, sub in _walk(task.schema):
            field = name.rstrip("[]")
            if field in ID_FIELDS and sub.get("type") != "array":
                assert _values(sub) is not None, f"{task.name}.{name} is not an enum: {sub}"
            if field in POINTERS:
                values = _values(sub)
                if values is None:
                    assert len(words) > ENUM_LIMIT, f"{task.name}.{name}: a small range is an enum"
                    for part in sub.get("anyOf", [sub]):
                        if part.get("type") == "null":
                            continue
                        assert part["minimum"] >= 0 and part["maximum"] <= len(words) - 1
                else:
                    assert values <= set(range(len(words))), f"{task.name}.{name}: {values}"


def _rejects(task: Task, answer: Any) -> None:
    assert validate(task.schema, answer), f"{task.name} schema accepted {answer}"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(briefs())
def test_what_the_code_check_rejects_for_an_id_or_pointer_the_schema_rejects(
    drawn: tuple[Brief, Words, list[Unit]],
) -> None:
    brief, words, units = drawn
    n = len(words)
    last = n - 1
    seg = segment_task(brief, words)
    unit = {"id": "u1", "kind": "request", "from": 0, "to": last, "hypothetical": False}
    assert not validate(seg.schema, {"units": [{**unit, "continues": None}]})
    assert seg.check({"units": [{**unit, "to": last + 1, "continues": None}]})
    _rejects(seg, {"units": [{**unit, "to": last + 1, "continues": None}]})
    _rejects(seg, {"units": [{**unit, "from": -1, "continues": None}]})
    _rejects(seg, {"units": [{**unit, "id": "u0", "continues": None}]})
    _rejects(seg, {"units": [{**unit, "id": "x1", "continues": None}]})
    _rejects(seg, {"units": [{**unit, "continues": "u99"}]})
    if not brief.cards:
        _rejects(seg, {"units": [{**unit, "kind": "card_answer", "continues": None}]})

    # Route: a unit correcting or cancelling itself, or one not in the message.
    routed = [u for u in units if u.kind != "other"] or units[:1]
    route = route_task(brief, words, routed, units)
    first = routed[0]
    base = {
        "unit": first.id,
        "operations": [],
        "topic": None,
        "constraint": None,
        "card": None,
        "corrects": None,
        "cancels": None,
    }
    others = [
        {**base, "unit": u.id, "constraint": {"kind": "do_not_submit", "scope": "turn"}}
        if u.kind == "constraint"
        else {**base, "unit": u.id}
        for u in routed[1:]
    ]
    if first.kind == "request":
        _rejects(route, {"routes": [{**base, "corrects": first.id}, *others]})
        _rejects(route, {"routes": [{**base, "operations": ["no.such_op"]}, *others]})
    if first.kind == "cancellation":
        _rejects(route, {"routes": [{**base, "cancels": first.id}, *others]})
    _rejects(route, {"routes": [{**base, "unit": "u99"}, *others]})
    _rejects(route, {"routes": [{**base, "corrects": "u99"}, *others]})

    # Locate: a handle not in view; a pointer past the message.
    locate = locate_task(words, units[0], "rename", brief.records)
    _rejects(locate, {"handles": ["h99"], "find": None})
    _rejects(locate, {"handles": [], "find": {"from": 0, "to": n, "copy": "x"}})

    # Coverage: a missed unit outside the uncovered runs.
    runs = gaps(words, units)
    coverage = coverage_task(words, units, runs, cards=bool(brief.cards))
    held = units[0].start
    assert coverage.check({"missed": [{"from": held, "to": held, "kind": "request"}]})
    _rejects(coverage, {"missed": [{"from": held, "to": held, "kind": "request"}]})

    # Extract: a value in another unit's words, past the message, a handle not offered.
    owner = units[0]
    theirs = next(
        (w for u in units[1:] if u.id != owner.continues for w in range(u.start, u.end + 1)),
        None,
    )
    for spec in brief.operations:
        if not spec.arguments:
            continue
        candidates = {
            a.name: list(brief.records) for a in spec.arguments if a.kind is ArgumentKind.RECORD
        }
        task = extract_task(words, owner, units, spec, "en", candidates)
        arg = spec.arguments[0]
        value: dict[str, Any] = {"argument": arg.name, "from": owner.start, "to": owner.start}
        value["copy"] = words.tokens[owner.start]
        if arg.kind is ArgumentKind.CHOICE:
            value["choice"] = arg.choices[0]
        if arg.kind is ArgumentKind.RECORD:
            value.update(record=None, literal=None)
        assert not validate(task.schema, {"values": [value]}), (spec.key, value)
        _rejects(task, {"values": [{**value, "to": n}]})
        _rejects(task, {"values": [{**value, "argument": "no_such_argument"}]})
        if theirs is not None:
            moved = {**value, "from": theirs, "to": theirs, "copy": words.tokens[theirs]}
            assert task.check({"values": [moved]})
            _rejects(task, {"values": [moved]})
        if arg.kind is ArgumentKind.CHOICE:
            _rejects(task, {"values": [{**value, "choice": "no_such_choice"}]})
        if arg.kind is ArgumentKind.RECORD:
            _rejects(task, {"values": [{**value, "record": "h99"}]})

    # Cross-check: a step an act cannot send back, an act that was not read.
    cross = cross_check_task(
        words, [{"id": "a1"}, {"id": "a2"}], steps={"a1": ("extract",), "a2": ()}
    )
    assert cross.check({"findings": [{"act": "a1", "step": "locate", "note": "x"}]})
    _rejects(cross, {"findings": [{"act": "a1", "step": "locate", "note": "x"}]})
    _rejects(cross, {"findings": [{"act": "a2", "step": "extract", "note": "x"}]})
    _rejects(cross, {"findings": [{"act": "a9", "step": "extract", "note": "x"}]})
