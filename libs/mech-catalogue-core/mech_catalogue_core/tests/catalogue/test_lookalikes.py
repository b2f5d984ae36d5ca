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

"""Look-alike tool names (invisible characters, confusables) get a warning on every offering mech."""

import hashlib
import json
import tracemalloc
from typing import Dict, List

import pytest
from mech_catalogue_core.catalogue import (
    lookalikes,
)
from mech_catalogue_core.catalogue.fetching import (
    FetchResult,
    refresh_catalogue,
)
from mech_catalogue_core.catalogue.lookalikes import (
    has_format_characters,
    lookalike_problems,
    skeleton,
)
from mech_catalogue_core.chain.registry import (
    DigestRead,
)
from mech_catalogue_core.chain.snapshot import (
    RegistrySnapshot,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    MechRef,
)
from mech_catalogue_core.model.problems import (
    LOOKALIKE_TOOL_NAME,
)


def parse(data: bytes):
    """Parse as the skill does.

    :param data: manifest bytes.
    :return: (manifest, problems).
    """
    result = parse_manifest(data)
    return result.manifest, result.problems


def catalogue_of(
    tools_by_mech: Dict[int, List[str]], block: int = 10, previous=None
) -> Catalogue:
    """Refresh a catalogue where mech ``i`` publishes the tools listed for it.

    :param tools_by_mech: mech id -> tool names.
    :param block: snapshot block.
    :param previous: the last catalogue.
    :return: the catalogue.
    """
    reads, fetched = [], {}
    for mech_id, names in tools_by_mech.items():
        data = json.dumps({"name": f"m{mech_id}", "tools": names}).encode()
        digest = "0x" + hashlib.sha256(data).hexdigest()
        reads.append(
            DigestRead(
                MechRef(100, "legacy_mech_registry", "0x" + "ab" * 20, mech_id), digest
            )
        )
        fetched[digest] = FetchResult.ok(digest, f"bafk{mech_id}", data)
    return refresh_catalogue(
        RegistrySnapshot.build(block, reads), fetched, parse, previous
    )


def warned(catalogue: Catalogue) -> Dict[int, List[str]]:
    """Mech id -> the look-alike warnings' messages.

    :param catalogue: a catalogue.
    :return: the warnings per mech that has any.
    """
    out = {}
    for mech in catalogue.mechs:
        messages = [p.message for p in mech.problems if p.code == LOOKALIKE_TOOL_NAME]
        if messages:
            out[mech.ref.mech_id] = messages
    return out


#: names whose look-alike is made of invisible characters: refused at parse (adv29yt)
INVISIBLE_LOOKALIKES = {
    "zero-width space": "pred\u200bict",
    "zero-width joiner": "predi\u200dct",
    "right-to-left override": "predict\u202e",
    "bidi isolate": "\u2066predict\u2069",
}
LOOKALIKES = {
    "Cyrillic ie": "pr\u0435dict",
    "Greek omicron in a Latin name": "summ\u03bfry",
    "fullwidth letters": "\uff50\uff52\uff45\uff44\uff49\uff43\uff54",
    "mathematical bold p": "\U0001d429redict",
}
ORIGINALS = {"Greek omicron in a Latin name": "summory"}


@pytest.mark.parametrize("kind", sorted(LOOKALIKES))
def test_a_lookalike_of_another_mechs_tool_warns_both(kind: str) -> None:
    """Both the honest and the look-alike mech carry a warning naming the other name."""
    original = ORIGINALS.get(kind, "predict")
    catalogue = catalogue_of({1: [original, "summarise"], 2: [LOOKALIKES[kind]]})
    found = warned(catalogue)
    assert set(found) == {1, 2}, found
    assert ascii(LOOKALIKES[kind]) in found[1][0]
    assert ascii(original) in found[2][0]
    assert all(not p.is_error for m in catalogue.mechs for p in m.problems)
    assert catalogue.mech_by_key(catalogue.mechs[1].ref.key) is not None


def test_distinct_and_case_only_differences_are_not_lookalikes() -> None:
    """Different names, and names differing only by case, are told apart by sight."""
    catalogue = catalogue_of(
        {1: ["predict", "summarise"], 2: ["Predict", "predictor", "预测"]}
    )
    assert not warned(catalogue)


@pytest.mark.parametrize("kind", sorted(INVISIBLE_LOOKALIKES))
def test_an_invisible_lookalike_is_refused_at_parse(kind: str) -> None:
    """A name holding an invisible character is no tool at all, so nothing looks alike.

    (Before adv29yt it was offered with a ``lookalike_tool_name`` warning on both mechs.)

    :param kind: which invisible look-alike.
    """
    catalogue = catalogue_of(
        {1: ["predict", "summarise"], 2: [INVISIBLE_LOOKALIKES[kind]]}
    )
    assert not warned(catalogue)
    honest, copy = catalogue.mechs
    assert [t.name for t in honest.tools] == ["predict", "summarise"]
    assert not copy.tools
    assert "invalid_tool_name" in [p.code for p in copy.problems if p.is_error]


def test_an_invisible_character_alone_is_flagged() -> None:
    """The name check still flags a format character (a catalogue of another version)."""
    found = lookalike_problems(["only\u200bone", "other"])
    assert list(found) == ["only\u200bone"]
    assert "invisible" in found["only\u200bone"].message


def test_warnings_follow_the_names_and_never_accumulate() -> None:
    """Same names: same entries, period after period; the twin withdrawn: the warning goes."""
    tools = {1: ["predict"], 2: ["pr\u0435dict"]}
    first = catalogue_of(tools)
    again = catalogue_of(tools, 20, first)
    assert [len(v) for v in warned(again).values()] == [1, 1]
    assert again.mechs[0].problems == first.mechs[0].problems
    gone = catalogue_of({1: ["predict"], 2: ["forecast"]}, 30, again)
    assert not warned(gone)


def test_same_warnings_whatever_the_order() -> None:
    """The warnings are a function of the set of names: every agent adds the same ones."""
    names = ["a\u200bb", "ab", "x", "\u0430b", "y"]
    assert lookalike_problems(names) == lookalike_problems(list(reversed(names)))
    assert skeleton("\u0430b") == skeleton("ab") == skeleton("a\u200bb")


# --- the same skeletons on every agent, whatever its Python version --------------------


def test_skeletons_do_not_read_the_interpreters_unicode_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Skeletons and format checks never read the interpreter's Unicode database.

    Agents on Python 3.11 (Unicode 14) and 3.12 (Unicode 15) must add the same warnings:
    with the interpreter's own database made unusable, the answers are unchanged.

    :param monkeypatch: pytest's.
    """
    names = ["pred\u200bict", "pr\u0435dict", "\uff50redict", "predict\u2067", "plain"]
    expected = {name: (skeleton(name), has_format_characters(name)) for name in names}
    lookalikes.clear_skeleton_cache()

    class Unusable:  # pylint: disable=too-few-public-methods
        """Stands in for the interpreter's ``unicodedata`` inside the module."""

        def __getattr__(self, name: str) -> None:
            raise AssertionError(f"the interpreter's unicodedata.{name} was read")

    monkeypatch.setattr(lookalikes, "unicodedata", Unusable())
    assert {
        name: (skeleton(name), has_format_characters(name)) for name in names
    } == expected
    lookalikes.clear_skeleton_cache()


@pytest.mark.parametrize(
    "char",
    ["\u00ad", "\u061c", "\u200b", "\u2066", "\u2069", "\U00013430", "\U0001343f"],
)
def test_format_characters_unicode_32_did_not_classify_are_still_flagged(
    char: str,
) -> None:
    """Format characters newer than Unicode 3.2 are still flagged and removed.

    Soft hyphen, Arabic letter mark, zero width space, bidi isolates, Egyptian format
    controls: not ``Cf`` in the frozen Unicode 3.2 database, still invisible.

    :param char: the format character.
    """
    name = f"pre{char}dict"
    assert has_format_characters(name)
    assert skeleton(name) == skeleton("predict")
    problems = lookalike_problems(["predict", name])
    assert set(problems) == {"predict", name}


@pytest.mark.parametrize(
    "name",
    [
        "".join(chr(c) for c in range(128)),  # every ASCII character, controls included
        "Il1|0O`'",  # the ASCII characters that have a smaller homoglyph, and theirs
        "predict-v2_LL",
        "",
    ],
)
def test_an_ascii_names_skeleton_is_the_general_one(name: str) -> None:
    """The ASCII shortcut (one translate) gives what NFKC + format removal + prototypes give.

    :param name: an ASCII name.
    """
    normal = lookalikes.FROZEN_UCD.normalize("NFKC", name)
    general = "".join(
        lookalikes._prototype(c)  # pylint: disable=protected-access
        for c in normal
        if not lookalikes.is_format_character(c)
    )
    lookalikes.clear_skeleton_cache()
    assert skeleton(name) == general
    assert not has_format_characters(name)


def test_names_without_a_twin_cost_no_group_of_their_own() -> None:
    """20,000 distinct names, two of them twins: under 200 bytes of working memory a name.

    A catalogue of 200,000 tools is checked every period; a set or list per lone name
    (about 400 bytes a name, traced) is what the look-alike pass held at once before.
    """
    names = sorted(
        [f"tool_{i}_predict_market" for i in range(20_000)] + ["paypal", "pаypal"]
    )
    tracemalloc.start()
    try:
        found = lookalike_problems(names)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sorted(found) == ["paypal", "pаypal"]
    assert peak / len(names) < 200


@pytest.mark.parametrize(
    "twin",
    [
        "forecast-onIine",  # capital I for l
        "forecast-on1ine",  # digit one for l
        "forecast-on|ine",  # vertical bar for l
        "f0recast-online",  # digit zero for o... kept apart: o is not O
        "FORECAST-0NLINE",  # O and 0 in upper case
        "forecast-onlіne",  # Cyrillic i (U+0456)
    ],
)
def test_ascii_and_homoglyph_twins_of_l_and_o_are_lookalikes(twin: str) -> None:
    """I/l/1/| share a skeleton, as O/0 do; a lower-case o stays apart from 0."""
    honest = "FORECAST-ONLINE" if twin.isupper() else "forecast-online"
    found = lookalike_problems(sorted([honest, twin]))
    assert (sorted(found) == sorted([honest, twin])) is (not twin.startswith("f0"))


def test_i_l_and_one_still_differ_from_other_letters() -> None:
    """The extra prototypes join only I, l, 1 and |: "line" and "tine" stay apart."""
    assert not lookalike_problems(["on-line", "on-tine", "on-Iinen"])
