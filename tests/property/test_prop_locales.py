"""Every code-written sentence in every locale (docs/adr/0013-cards-show-what-they-do.md).

Generic on purpose: the tests walk the tables, not a list of keys, so a key another change
adds in one locale only fails here.

* Runtime copy: every table of ``turnframe.runtime.copy.TABLES`` holds the same keys with
  the same placeholders, none blank; no other sentence table hides in the module; every
  locale a registered workflow declares has a table.
* The travel sample's copy: every module-level table keyed by locale holds every declared
  locale, the same inner keys, the same placeholders, the same number of words per entry.
* Every key the code names literally (``say("…")``, ``copy.text(locale, "…")``, a
  ``Rejected("code")`` → ``refusal.code``) and every per-operation / per-workflow key
  (``card.<operation>``, ``select.<workflow>``) exists in every locale.
* The workflows' code-written words (questions, labels, selection prompts, card texts)
  are produced in every declared locale without falling back to English.
* Hostile pt-PT conversations, of every shape the hostile harness makes (text, clicks,
  both; acts, questions, refusals, cards, stale and replayed clicks), never carry an
  English sentence of the en tables in their reply.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import turnframe
from turnframe.runtime import copy as runtime_copy
from turnframe.samples.travel import DEMO_RECORDS, travel_application
from turnframe.samples.travel import copy as travel_copy

REGISTRY = travel_application().registry
DECLARED = sorted({loc for n in REGISTRY.names() for loc in REGISTRY.workflow(n).locales})
SRC = Path(turnframe.__file__).parent


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _lang(locale: str) -> str:
    return locale.split("-")[0].lower()


# -- tables ------------------------------------------------------------------------------


def test_runtime_tables_hold_every_key_in_every_locale() -> None:
    tables = runtime_copy.TABLES
    en = tables["en"]
    for locale, table in tables.items():
        assert set(table) == set(en), (
            f"{locale}: missing {sorted(set(en) - set(table))}, extra {sorted(set(table) - set(en))}"
        )
        for key, sentence in table.items():
            assert sentence.strip(), f"{locale}:{key} is blank"
            assert _placeholders(sentence) == _placeholders(en[key]), f"{locale}:{key}"
    known = {id(t) for t in tables.values()}
    for name, value in vars(runtime_copy).items():
        if (
            not name.startswith("__")
            and isinstance(value, dict)
            and value
            and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
        ):
            assert id(value) in known, f"runtime copy table {name} is not in TABLES"
    for locale in DECLARED:
        assert any(_lang(t) == _lang(locale) for t in tables), f"no runtime table for {locale}"


def _locale_tables() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, value in vars(travel_copy).items():
        if isinstance(value, dict) and travel_copy.EN in value:
            yield name, value


def test_travel_tables_hold_every_key_in_every_declared_locale() -> None:
    tables = dict(_locale_tables())
    assert {"_TEXT", "_ARGS", "_KINDS", "_STATUSES"} <= set(tables)
    for name, table in tables.items():
        for locale in DECLARED:
            assert travel_copy.lang(locale) in table, f"{name} has no {locale}"
        en = table[travel_copy.EN]
        for locale, entries in table.items():
            if isinstance(en, dict):
                assert set(entries) == set(en), (
                    f"{name}[{locale}]: missing {sorted(set(en) - set(entries))}, "
                    f"extra {sorted(set(entries) - set(en))}"
                )
                for key, value in entries.items():
                    if isinstance(value, str):
                        assert value.strip() or not en[key].strip(), f"{name}[{locale}]:{key}"
                        assert _placeholders(value) == _placeholders(en[key]), (
                            f"{name}[{locale}]:{key}"
                        )
                    else:
                        assert len(value) == len(en[key]), f"{name}[{locale}]:{key}"
            else:
                assert len(entries) == len(en), f"{name}[{locale}]"


# -- keys the code uses -----------------------------------------------------------------


def _literal_keys() -> Iterator[tuple[str, str, str]]:
    """Yield (table, key, where) for every literal key a call in the source names."""
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        source = path.read_text(encoding="utf-8")
        runtime_say = "turnframe.runtime.copy import" in source or rel == "runtime/copy.py"
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            args = node.args

            def const(i: int, args: list[ast.expr] = args) -> str | None:
                if len(args) > i and isinstance(args[i], ast.Constant):
                    value = args[i].value
                    return value if isinstance(value, str) else None
                return None

            where = f"{rel}:{node.lineno}"
            if rel.startswith("samples/travel/"):
                if name == "text" and const(1):
                    yield "travel", const(1) or "", where
                elif name == "Rejected" and const(0):
                    yield "travel", f"refusal.{const(0)}", where
            elif runtime_say and name in ("say", "_say") and const(0):
                yield "runtime", const(0) or "", where


def test_every_key_the_code_names_exists_in_every_locale() -> None:
    found = list(_literal_keys())
    assert len(found) > 50, "the scan found too few keys; has the copy API changed?"
    text = travel_copy._TEXT
    for table, key, where in found:
        if table == "runtime":
            for locale, sentences in runtime_copy.TABLES.items():
                assert key in sentences, f"{where}: runtime key {key!r} missing in {locale}"
        else:
            for locale, sentences in text.items():
                assert key in sentences, f"{where}: travel key {key!r} missing in {locale}"
    for name in REGISTRY.names():
        for locale, sentences in text.items():
            assert f"select.{name}" in sentences, (name, locale)
            for op in REGISTRY.workflow(name).operations():
                assert f"card.{op.key}" in sentences, (op.key, locale)


def test_workflow_words_exist_in_every_declared_locale() -> None:
    english = {
        travel_copy.text("en", key)
        for key in travel_copy._TEXT["en"]
        if key.startswith("ask.")
        if not _placeholders(travel_copy._TEXT["en"][key])
    }
    for name in REGISTRY.names():
        erased = REGISTRY.workflow(name)
        for locale in erased.locales:
            for op in erased.operations():
                assert op.summary_in(locale).strip()
                prompt = erased.select_prompt(op, None, locale)
                assert prompt
                for argument in op.arguments:
                    label = argument.label_in(locale)
                    assert label.strip()
                    question = erased.definition.ask_argument(op, argument, locale)
                    assert question.strip()
                    if _lang(locale) != "en":
                        assert question not in english, (op.key, argument.name, locale)
                        assert prompt != travel_copy.text("en", f"select.{name}")


# -- pt-PT turns carry no English -------------------------------------------------------


def _english_fragments() -> list[str]:
    """Pieces of English template text (between placeholders) that no pt-PT string has."""
    english: list[str] = list(runtime_copy.TABLES["en"].values())
    portuguese: list[str] = [
        v for loc, t in runtime_copy.TABLES.items() if _lang(loc) == "pt" for v in t.values()
    ]
    for _, table in _locale_tables():
        for locale, entries in table.items():
            values = entries.values() if isinstance(entries, dict) else entries
            flat = [
                w for v in values for w in ((v,) if isinstance(v, str) else v) if isinstance(w, str)
            ]
            (english if locale == travel_copy.EN else portuguese).extend(flat)
    for name in REGISTRY.names():
        for op in REGISTRY.workflow(name).operations():
            english.append(op.summary)
            portuguese.append(op.summary_in("pt-PT"))
            for argument in op.arguments:
                english.append(argument.label)
                portuguese.append(argument.label_in("pt-PT"))
    pt_text = "\n".join(portuguese)
    out = set()
    for template in english:
        for piece in re.split(r"\{[^}]*\}", template):
            piece = piece.strip(" .,:;()·–-\n")
            if len(piece.split()) >= 2 and len(piece) >= 8 and piece not in pt_text:
                out.add(piece)
    return sorted(out)


FRAGMENTS = _english_fragments()


def _user_words() -> list[str]:
    import tf_hostile

    words = [*tf_hostile._GARBAGE, *tf_hostile._FIND_WORDS]
    words += [v for values in tf_hostile._VALID.values() for v in values]
    for record in DEMO_RECORDS:
        words += [str(v) for v in record.values() if isinstance(v, str)]
    return sorted((w for w in words if len(w.strip()) > 1), key=len, reverse=True)


def _reply_text(blocks: Any) -> str:
    parts: list[str] = []
    for block in blocks:
        if block.kind == "receipt":
            parts.append(block.receipt.text)
        elif block.kind == "interaction":
            parts.append(block.prompt)
            parts.extend(o.label for o in block.options)
        else:
            parts.append(getattr(block, "text", ""))
    return "\n".join(parts)


def english_in(text: str, user_words: list[str]) -> list[str]:
    """Return the English fragments in ``text`` once the user's own words are taken out."""
    for word in user_words:
        text = text.replace(word, "\u2063")
    return [f for f in FRAGMENTS if f in text]


def test_the_fragment_check_catches_english() -> None:
    assert len(FRAGMENTS) > 100
    sample = runtime_copy.say("stale_no_reissue", "en")
    assert english_in(sample, [])
    assert not english_in(runtime_copy.say("stale_no_reissue", "pt-PT"), [])


SHAPES: dict[str, int] = {}


@seed(8)
@settings(
    max_examples=12,
    deadline=None,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), length=st.integers(20, 35))
def test_pt_pt_turns_of_every_shape_carry_no_english(data: Any, length: int) -> None:
    from tf_hostile import Conversation
    from tf_oracle import Oracle

    oracle = Oracle(REGISTRY)
    user_words = _user_words()
    leaks: list[str] = []

    async def main() -> None:
        talk = Conversation(data, oracle, locales=("pt-PT",))
        await talk.seed()
        for _ in range(length):
            result = await talk.turn()
            for item in result.results.values():
                SHAPES[f"{item.status.value}:{item.code or ''}"] = (
                    SHAPES.get(f"{item.status.value}:{item.code or ''}", 0) + 1
                )
            for block in result.blocks:
                SHAPES[f"block:{block.kind}"] = SHAPES.get(f"block:{block.kind}", 0) + 1
            text = _reply_text(result.blocks)
            found = english_in(text, user_words)
            if found:
                leaks.append(f"turn {talk.turns}: {found!r} in {text!r}")

    with oracle.installed():
        anyio.run(main)
    assert not leaks, "\n".join(leaks[:5])


def test_the_pt_pt_run_covered_many_shapes() -> None:
    if not SHAPES:  # run on its own: the conversations above did not run in this process
        return
    for shape in ("block:receipt", "block:interaction", "block:notice"):
        assert SHAPES.get(shape, 0) > 0, (shape, SHAPES)
    assert len([s for s in SHAPES if not s.startswith("block:")]) >= 12, SHAPES
