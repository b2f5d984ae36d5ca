# Copyright 2026 mech-catalogue contributors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Combining marks drawn past their character, or that a letter hides (fix29zf, adv29zt).

A stranger's text keeps at most 4 distinct marks on a visible character and none on a
space, a line break or the text's start, wherever it is shown (the cleaning every
surface shares), with an ``invisible_text`` warning; a tool name stacking, repeating or
hiding marks is refused by both parsers; the look-alike comparison drops the marks a
person cannot see. Honest text of scripts that write marks (Vietnamese, pointed Hebrew
and Arabic, Devanagari, Thai, Lithuanian) is kept as it is and gets no warning.
"""

import json
import re
import time
import unicodedata
from pathlib import Path
from typing import Dict

import pytest
from mech_catalogue_core.catalogue.lookalikes import lookalike_problems, skeleton
from mech_catalogue_core.manifest.parsing import parse_manifest, parse_manifest_general
from mech_catalogue_core.manifest.typed_fast_path import typed_manifest
from mech_catalogue_core.model.hidden_characters import name_hiding, shown_as_written
from mech_catalogue_core.model.problems import INVISIBLE_TEXT
from mech_catalogue_core.model.quoted_text import sentence_for_model
from mech_catalogue_core.model.stacked_marks import (
    MAX_MARKS_PER_BASE,
    marks_cut,
    marks_escaped,
)
from mech_catalogue_core.model.untrusted_text import (
    for_model,
    for_person,
    label_for_model,
    schema_for_model,
    tool_text_problems,
    value_for_model,
)

from tests.test_hidden_names_and_schemas import (
    _catalogue,
    _manifest,
    _surfaces,
    _typed,
)

#: marks of each drawing class, five or more distinct ones each
ABOVE = "\u0300\u0301\u0302\u0303\u0304\u0306"  # ccc 230
BELOW = "\u0316\u0317\u0318\u0319\u031c\u031d"  # ccc 220
OVERLAY = "\u0334\u0335\u0336\u0337\u0338"  # ccc 1
ENCLOSING = "\u20dd\u20de\u20df\u20e0\u20e2"  # general category Me
CYRILLIC = "\u0483\u0484\u0485\u0486\u0487\u0489"  # titlo, psili... and millions sign
MARK_CLASSES = {
    "above": ABOVE,
    "below": BELOW,
    "overlay": OVERLAY,
    "enclosing": ENCLOSING,
    "cyrillic": CYRILLIC,
}
#: any run of more than 4 combining marks
LONG_RUN = re.compile(r"[\u0300-\u036f\u0483-\u0489\u20d0-\u20ff]{5,}")

#: text of scripts that write combining marks, kept as it is, NFC and NFD alike
HONEST: Dict[str, str] = {
    "vietnamese": "Dự báo thời tiết bằng tiếng Việt cho mọi cảng biển",
    "french": "Prévisions météo: café, naïve, crème brûlée",
    "hebrew pointed": "בְּרֵאשִׁ֖ית בָּרָ֣א אֱלֹהִ֑ים",
    "arabic vowelled": "مُحَمَّدٌ رَسُولُ ٱللَّهِ، تَوَقُّعَاتُ ٱلطَّقْسِ",
    "devanagari": "हिंदी में मौसम का पूर्वानुमान, क्षत्रिय, ज़्यादा",
    "thai": "พยากรณ์อากาศที่ดิน น้ำขึ้นน้ำลง กิ๊ก",
    "lithuanian": "i\u0307\u0300 i\u0307\u0301 lietuvi\u0173 kalba",
    "keycap": "press 1\u20e3 for tides",
}


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


@pytest.mark.parametrize("marks", MARK_CLASSES.values(), ids=list(MARK_CLASSES))
def test_a_run_past_the_limit_keeps_four_distinct_marks(marks: str) -> None:
    """Each class of mark: the first 4 distinct marks of a run stay, the rest go."""
    run = (marks * 4)[:18]
    text = "Tides for any port" + run + ", every day."
    cleaned = for_model(text)
    assert cleaned == "Tides for any port" + marks[:MAX_MARKS_PER_BASE] + ", every day."
    assert for_model(cleaned) == cleaned  # idempotent
    assert for_person(text) == cleaned


@pytest.mark.parametrize("marks", MARK_CLASSES.values(), ids=list(MARK_CLASSES))
def test_a_repeated_mark_is_dropped(marks: str) -> None:
    """The same mark twice on a letter draws a stack of one mark: one is kept."""
    assert for_model("a" + marks[0] * 3 + "b") == "a" + marks[0] + "b"
    assert (
        for_model("a" + marks[0] + marks[1] + marks[0] + "b") == "a" + marks[:2] + "b"
    )


@pytest.mark.parametrize(
    "base",
    ["", " ", "\u00a0", "\n", "\t", "\u2003", "\u3000", " \u200b", "\u2028"],
    ids=[
        "start",
        "space",
        "nbsp",
        "newline",
        "tab",
        "em-space",
        "ideographic",
        "zwsp",
        "ls",
    ],
)
def test_marks_on_no_visible_character_are_removed(base: str) -> None:
    """A mark at the start, or on white space (a format character removed first)."""
    for marks in MARK_CLASSES.values():
        text = "Tides." + base + marks[:2] if base else marks[:2] + "Tides."
        cleaned = for_model(text)
        assert not any(m in cleaned for m in marks), (base, cleaned)


def test_the_adversary_shape_is_cut_and_warned() -> None:
    """50 no-break spaces carrying 18 marks each (adv29zt Z1): no mark served."""
    text = (
        "Tides for any port." + ("\u00a0" + "".join(map(chr, range(0x300, 0x312)))) * 50
    )
    cleaned = for_model(text)
    assert cleaned == "Tides for any port." + "\u00a0" * 50


@pytest.mark.parametrize("text", HONEST.values(), ids=list(HONEST))
def test_honest_text_with_marks_is_kept_and_not_warned(text: str) -> None:
    """NFC and NFD forms: nothing cut, no warning."""
    for form in (text, _nfd(text)):
        assert marks_cut(form) == form
        assert for_person(form) == form
        assert value_for_model(form) == form
        tool = _tool_with_description(form)
        assert not [p for p in tool_text_problems(tool) if p.code == INVISIBLE_TEXT]


def _tool_with_description(description: str):  # type: ignore[no-untyped-def]
    result = parse_manifest(
        json.dumps(
            _manifest(
                "tides",
                {
                    "description": description,
                    "input": {"type": "text", "description": "a port"},
                    "output": {"type": "text", "description": "the table"},
                },
            )
        )
    )
    assert result.manifest is not None
    (tool,) = result.manifest.tools
    return tool


@pytest.mark.parametrize(
    "description",
    ["Tides" + BELOW * 2, "Tides " + ABOVE[:2], "Tides" + ENCLOSING[0] * 2],
    ids=["stacked", "on a space", "repeated"],
)
def test_marks_drawn_past_their_character_are_warned(description: str) -> None:
    """An ``invisible_text`` warning names the field and says the marks are cut."""
    tool = _tool_with_description(description)
    (warning,) = [p for p in tool_text_problems(tool) if p.code == INVISIBLE_TEXT]
    assert "'description'" in warning.message
    assert "combining marks" in warning.message and "cut" in warning.message


def test_every_cleaning_cuts_the_same_marks() -> None:
    """Labels, values, sentences, schema prose and values; problems escape them."""
    text = "port" + BELOW * 3
    kept = "port" + BELOW[:MAX_MARKS_PER_BASE]
    assert label_for_model(text) == kept
    assert value_for_model(text) == kept
    assert sentence_for_model("the value " + text) == "the value " + kept
    schema = schema_for_model(
        {"type": "string", "description": text, "enum": [text], "default": text}
    )
    assert schema == {
        "type": "string",
        "description": kept,
        "enum": [kept],
        "default": kept,
    }
    escaped = shown_as_written(text)
    assert not LONG_RUN.search(escaped) and "\\u031c" in escaped
    assert marks_escaped(escaped) == escaped


def test_no_surface_serves_a_stacked_description(tmp_path: Path) -> None:
    """The agent's routes, the four exports and ``search --json``: no long run."""
    spec = {
        "description": "Tide tables." + ("\u00a0" + ABOVE * 3) * 20 + " x" + BELOW * 4,
        "arguments": [
            {"identifier": "port", "type": "str", "description": "a port" + ABOVE * 5}
        ],
        "output": {"type": "text", "description": "the table" + OVERLAY * 5},
    }
    catalogue = _catalogue(_manifest("tides", spec))
    assert [t.name for m in catalogue.mechs for t in m.tools] == ["tides"]
    codes = [p.code for m in catalogue.mechs for p in m.problems]
    assert INVISIBLE_TEXT in codes
    for surface, value in _surfaces(catalogue, tmp_path):
        served = json.dumps(value, ensure_ascii=False)
        if surface in (
            "GET /mechs/<key>",
        ):  # the manifest's evidence: escaped problems
            served = json.dumps(value.get("tools", value), ensure_ascii=False)
        assert not LONG_RUN.search(served), surface
        assert "\u00a0\u0300" not in served, surface


#: names whose marks draw over other text or hide: refused by both parsers
REFUSED_NAMES = {
    "stacked above": "tide" + ABOVE[:5] + "s",
    "stacked below": "tides_" + BELOW,
    "stacked enclosing": "a" + ENCLOSING,
    "repeated": "tide" + "\u0301\u0301" + "s",
    "repeated apart": "tide\u0301\u0316\u0301s",
    "leading mark": "\u0301tides",
    "mark on a space": "tide \u0301s",
    "mark on a no-break space": "tide\u00a0\u0316s",
    "dot on i": "ti\u0307des",
    "dot on j": "j\u0307son",
    "dot on a cyrillic i": "t\u0456\u0307des",
    "dot on i below a dot below": "ti\u0323\u0307des",
    "lithuanian i with a dot and grave": "li\u0307\u0300tuva",
}
#: names of scripts that write marks, kept by both parsers
KEPT_NAMES = {
    "french nfd": _nfd("météo_café"),
    "vietnamese nfd": _nfd("tiếng_việt"),
    "vietnamese nfc": "tiếng_việt",
    "hebrew": "תַּחֲזִית",
    "arabic": "تَوَقُّعَات",
    "devanagari": "मौसम_पूर्वानुमान",
    "thai": "น้ำขึ้นน้ำลง",
    "keycap": "tide_1\ufe0f\u20e3",
    "an accent on i": "i\u0301cono",
    "a dot above after another accent": "i\u0300\u0307",
    "four distinct marks": "a\u0300\u0316\u0301\u0317",
}


@pytest.mark.parametrize("name", REFUSED_NAMES.values(), ids=list(REFUSED_NAMES))
def test_a_name_hiding_or_stacking_marks_is_refused_by_both_parsers(name: str) -> None:
    """``invalid_tool_name`` with the reason; the message shows no long run."""
    reason = name_hiding(name)
    assert reason
    data = json.dumps(_typed(name)).encode()
    assert typed_manifest(data) is None
    general = parse_manifest_general(data)
    assert general.manifest is not None and not general.manifest.tools
    (problem,) = [p for p in general.problems if p.code == "invalid_tool_name"]
    assert reason in problem.message
    assert not LONG_RUN.search(problem.message)
    assert parse_manifest(data) == general


@pytest.mark.parametrize("name", KEPT_NAMES.values(), ids=list(KEPT_NAMES))
def test_a_name_with_the_marks_its_script_writes_is_kept(name: str) -> None:
    """Both parsers keep it, the fast path too."""
    assert name_hiding(name) == ""
    data = json.dumps(_typed(name)).encode()
    assert typed_manifest(data) is not None
    general = parse_manifest_general(data)
    assert general.manifest is not None
    assert [t.name for t in general.manifest.tools] == [name]


@pytest.mark.parametrize(
    "twin",
    [
        "ti\u0307des",
        "ti\u0307\u0307des",
        "tide\u0335s",
        "t\u0334ides",
        "tid\u0338es",
        "t\u0456\u0307des",
    ],
)
def test_a_name_drawn_as_another_is_its_look_alike(twin: str) -> None:
    """A hidden dot, an overlay, a repeated mark: the same skeleton as ``tides``'s."""
    found = lookalike_problems(["tides", twin])
    assert set(found) == {"tides", twin}


@pytest.mark.parametrize("twin", ["tide\u0301\u0301s", "tid\u00e9\u0301s"])
def test_a_mark_repeated_on_its_letter_is_its_look_alike(twin: str) -> None:
    """The same accent twice draws as once: the twin of ``tidés``, composed or not."""
    assert set(lookalike_problems(["tid\u00e9s", twin])) == {"tid\u00e9s", twin}


@pytest.mark.parametrize(
    "pair",
    [
        ("cafe", "café"),
        ("cafe", _nfd("café")),
        ("tieng", "tiếng"),
        ("naive", "naïve"),
        ("tides", "tide\u20dds"),
        ("ico", "i\u0301co"),
        ("मौसम", "मसम"),
        ("นาน", "น้าน"),
    ],
)
def test_an_accent_a_person_sees_keeps_names_apart(pair: tuple) -> None:  # type: ignore[type-arg]
    """Accents, an enclosing circle, vowel signs and tone marks are seen: no warning."""
    assert skeleton(pair[0]) != skeleton(pair[1])
    assert not lookalike_problems(list(pair))


@pytest.mark.parametrize(
    "text",
    [
        "a" + "\u0301" * 100_000,
        ("a" + ABOVE) * 15_000,
        "\u00a0\u0301" * 50_000,
        ("a" + "\u0301\u0316" * 2) * 20_000,
    ],
    ids=["one long run", "many runs", "no base", "repeats within the limit"],
)
def test_the_cut_is_linear(text: str) -> None:
    """Hostile shapes of 100,000 characters: cut, read and compared within 2 s."""
    started = time.perf_counter()
    cleaned = marks_cut(text)
    name_hiding(text)
    skeleton(text)
    assert time.perf_counter() - started < 2.0
    assert marks_cut(cleaned) == cleaned


def test_a_paid_answer_is_shown_with_the_marks_cut_and_said() -> None:
    """Plain text and a JSON document: cut, counted in the note; Hebrew kept."""
    # pylint: disable=import-outside-toplevel
    from mech_catalogue_cli.mcp_server.answers import hidden_in_value
    from mech_catalogue_cli.mcp_server.results import _hidden_said, visible_text

    answer = "High tide 06:12." + ("\u00a0" + ABOVE * 3) * 40
    shown, removed, kinds = visible_text(answer)
    assert shown == "High tide 06:12." + "\u00a0" * 40 and not kinds
    assert removed == len(answer) - len(shown)
    assert "combining marks" in _hidden_said(removed, kinds, "bafy")
    document = json.dumps(
        {"result": "06:12" + BELOW * 5, "note": HONEST["hebrew pointed"]}
    )
    shown, removed, _ = visible_text(document)
    assert json.loads(shown) == {
        "result": "06:12" + BELOW[:MAX_MARKS_PER_BASE],
        "note": HONEST["hebrew pointed"],
    }
    assert removed > 0
    where, kinds = hidden_in_value(json.loads(document))
    assert where == ("/result",) and not kinds
    assert hidden_in_value({"note": HONEST["arabic vowelled"]}) == ((), ())


def test_a_mechs_own_text_with_stacked_marks_is_warned_and_cut() -> None:
    """The manifest's name and description: ``invisible_text``, shown cut."""
    # pylint: disable=import-outside-toplevel
    from mech_catalogue_core.model.mech_text import mech_text_problems

    description = "Tide tables." + ("\u00a0" + ABOVE) * 10
    problems = mech_text_problems("Tides" + BELOW, description, "{}")
    assert len(problems) == 1
    problem = problems[0]
    assert problem.code == INVISIBLE_TEXT and "combining marks" in problem.message
    assert "'name'" in problem.message and "'description'" in problem.message
    assert not mech_text_problems("Tides", HONEST["hebrew pointed"], "{}")
    assert for_model(description) == "Tide tables." + "\u00a0" * 10
