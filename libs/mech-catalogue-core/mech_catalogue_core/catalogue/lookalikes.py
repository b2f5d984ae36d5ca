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

r"""Tool names that look like another tool's name: a warning on each offering mech.

A caller choosing a tool by its name on screen cannot tell ``predict`` from ``pred\u200bict``
(a zero-width space), ``predict\u202e`` (a bidi control) or ``prеdict`` (Cyrillic ``е``).
Two distinct names of the catalogue are look-alikes when their *skeletons* are equal:

1. NFKC normalisation (fullwidth, ligatures, mathematical letters...);
2. every format character removed (zero-width spaces and joiners, bidi embeddings,
   overrides and isolates, the BOM...: :data:`FORMAT_CHARACTERS`), and every combining
   mark a person does not see (:func:`.stacked_marks.marks_drawn`, UTS #39 section 5.4:
   a dot above on ``i`` or ``j``, a mark drawn across its letter, a mark repeated on
   it; adv29zt), so ``ti\u0307des`` and ``tide\u0335s`` are ``tides``'s twins;
3. every character replaced by the smallest code point among itself and its homoglyphs in
   the Unicode confusables table (UTS #39 ``confusables.txt``, as shipped by the
   ``confusable_homoglyphs`` package: maintained, data only, no network), so ``а``
   (Cyrillic) and ``a`` map to the same character; then :data:`EXTRA_PROTOTYPES`
   (``I`` and ``|`` as ``1``, like ``l``).

Case is kept: ``Predict`` and ``predict`` differ visibly. A name holding a format character
is flagged even without a twin. Each mech offering such a name gets one
:data:`LOOKALIKE_TOOL_NAME` warning per name (naming the look-alikes); the warnings are a
function of the catalogue's names only, so every agent adds the same ones.

Every agent must compute the same skeletons whatever its Python version, yet
``unicodedata`` follows the interpreter (Unicode 14.0 in Python 3.11, 15.0 in 3.12, ...):
a character assigned in a newer version normalises, or counts as a format character, on
one agent and not on another, and their catalogues (whose warnings are part of the
digest) would never agree. So the skeleton uses only fixed data: NFKC from
``unicodedata.ucd_3_2_0`` (the frozen Unicode 3.2 database every Python ships, which IDNA
uses for the same reason; a character assigned later is left as it is) and
:data:`FORMAT_CHARACTERS`, the marks' properties of the pinned ``regex`` and the
confusables table of the pinned package.
"""

import unicodedata
from collections import Counter
from dataclasses import replace
from typing import Dict, List, Tuple

from confusable_homoglyphs.confusables import confusables_data
from mech_catalogue_core.model.catalogue import (
    Mech,
)
from mech_catalogue_core.model.hidden_characters import SHAPING_JOINERS
from mech_catalogue_core.model.memo import (
    bounded_memo,
)
from mech_catalogue_core.model.problems import (
    LOOKALIKE_TOOL_NAME,
    Problem,
    warning,
)
from mech_catalogue_core.model.stacked_marks import MARK, marks_drawn

#: how many look-alike names one warning lists
MAX_LISTED = 3
#: entries of the per-character prototype memo (a character and its prototype: one each;
#: names can hold any of Unicode's 1.1 million code points, so it is not unbounded)
PROTOTYPE_MEMO_ENTRIES = 1 << 14
#: characters a prototype entry holds at most
PROTOTYPE_MEMO_CHARS = 2
#: entries of the skeleton memo of non-ASCII names
SKELETON_MEMO_ENTRIES = 1 << 16
#: characters a name and its skeleton may hold together (NFKC can expand a character to
#: 18): a longer pair is computed each time
SKELETON_MEMO_CHARS = 1 << 10
#: characters the skeleton memo holds at most
SKELETON_MEMO_TOTAL = 1 << 22
#: the Unicode database every agent uses, whatever its Python version (see the module doc)
FROZEN_UCD = unicodedata.ucd_3_2_0
#: format characters (general category ``Cf``) that Unicode 3.2 did not classify as such,
#: as of Unicode 15.0 (Python 3.12): soft hyphen, Arabic number signs and letter mark,
#: zero width space, invisible plus, the bidi isolates, Kaithi/Egyptian/shorthand format
#: controls. Added to what ``FROZEN_UCD`` says is ``Cf``.
LATER_FORMAT_CHARACTERS = frozenset(
    chr(code)
    for first, last in (
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x200B, 0x200B),
        (0x2064, 0x2064),
        (0x2066, 0x2069),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
    )
    for code in range(first, last + 1)
)


def is_format_character(char: str) -> bool:
    """Whether a character is an invisible format character, the same on every agent.

    :param char: one character.
    :return: True for ``Cf`` in Unicode 3.2 and :data:`LATER_FORMAT_CHARACTERS`.
    """
    return char in LATER_FORMAT_CHARACTERS or FROZEN_UCD.category(char) == "Cf"


#: prototypes the confusables table leaves apart although many fonts draw them alike:
#: capital ``I`` and the vertical bar as ``1`` (the table maps ``l`` to ``1`` but keeps
#: ``I``, and ``|`` to ``l`` without following on), so ``onIine``, ``on|ine``,
#: ``online`` and ``on1ine`` share a skeleton (``O`` and ``0`` already do). Fixed data:
#: the same on every agent.
EXTRA_PROTOTYPES = {"I": "1", "l": "1", "|": "1"}


@bounded_memo(PROTOTYPE_MEMO_ENTRIES, PROTOTYPE_MEMO_CHARS)
def _prototype(char: str) -> str:
    homoglyphs = confusables_data.get(char, ())
    found = min([char, *(h["c"] for h in homoglyphs if len(h["c"]) == 1)])
    return EXTRA_PROTOTYPES.get(found, found)


#: each ASCII character that has a smaller homoglyph -> its prototype (``str.translate``)
_ASCII_PROTOTYPES = {
    code: _prototype(chr(code))
    for code in range(128)
    if _prototype(chr(code)) != chr(code)
}
# ASCII text is its own NFKC form and holds no format character, so an ASCII name's
# skeleton is one translate (checked here once, and by the tests against the general path)
assert not any(  # nosec B101
    is_format_character(chr(code))
    or FROZEN_UCD.normalize("NFKC", chr(code)) != chr(code)
    for code in range(128)
)


def skeleton(name: str) -> str:
    """Return the form two look-alike names share (see the module doc).

    An ASCII name's skeleton is one ``str.translate``, cheaper than a cache lookup, so
    only other names are cached: a cache entry per ASCII name cost about 170 bytes, 34 MiB
    for a catalogue of 200,000 tools, to save nothing.

    :param name: a tool name.
    :return: its skeleton.
    """
    if name.isascii():
        return name.translate(_ASCII_PROTOTYPES)
    return _unicode_skeleton(name)


@bounded_memo(SKELETON_MEMO_ENTRIES, SKELETON_MEMO_CHARS, SKELETON_MEMO_TOTAL)
def _unicode_skeleton(name: str) -> str:
    normal = FROZEN_UCD.normalize("NFKC", name)
    visible = "".join(c for c in normal if not is_format_character(c))
    return "".join(map(_prototype, _marks_drawn(visible)))


def _marks_drawn(name: str) -> str:
    """:func:`.stacked_marks.marks_drawn` of a name's decomposed form, composed again.

    Decomposed first, so a mark NFKC composed into its letter counts (``é`` and
    U+0301 is an ``e`` with the same mark twice).

    :param name: an NFKC name without format characters.
    :return: the name with only the marks a person sees, NFC (of the frozen table).
    """
    if MARK.search(name) is None:
        return name
    decomposed = FROZEN_UCD.normalize("NFD", name)
    return FROZEN_UCD.normalize("NFC", marks_drawn(decomposed))


def clear_skeleton_cache() -> None:
    """Forget the cached skeletons of non-ASCII names (tests that swap the Unicode data)."""
    _unicode_skeleton.cache_clear()


def has_format_characters(name: str) -> bool:
    """Whether a name holds an invisible format character (:func:`is_format_character`).

    A joiner that only shapes what is shown (an emoji ZWJ sequence's, a Persian word's
    non-joiner: :data:`.hidden_characters.SHAPING_JOINERS`) does not count; the
    skeleton still drops it, so the same name without it is its twin.

    :param name: a tool name.
    :return: True when it does (never for an ASCII name).
    """
    if name.isascii():
        return False
    return any(is_format_character(c) for c in SHAPING_JOINERS.sub("", name))


def lookalike_problems(names: List[str]) -> Dict[str, Problem]:
    """The warning for each name that looks like another (or holds format characters).

    :param names: the catalogue's distinct tool names.
    :return: name -> its warning; names without one are absent.
    """
    # only skeletons shared by two names get a group: a group (a set or list) per name
    # held about 85 MiB at once for a catalogue of 200,000 tools, nearly all of them alone
    counts = Counter(map(skeleton, names))
    groups: Dict[str, List[str]] = {key: [] for key, n in counts.items() if n > 1}
    del counts
    for name in names:
        groups.get(skeleton(name), []).append(name)
    # each group sorted once: anyone can register thousands of names sharing one skeleton
    # (invisible suffixes), and sorting the group again for each of them was quadratic
    for group in groups.values():
        group.sort()
    # the names to warn: those of a group, and those holding format characters (never
    # ASCII), without a third skeleton of every name
    grouped = {name for group in groups.values() for name in group}
    found: Dict[str, Problem] = {}
    for name in names:
        invisible = has_format_characters(name)
        if not invisible and name not in grouped:
            continue
        group = groups[skeleton(name)] if name in grouped else [name]
        count = len(group) - 1
        twins = [t for t in group[: MAX_LISTED + 1] if t != name][:MAX_LISTED]
        shown = ", ".join(_quoted(t) for t in twins)
        more = f" and {count - MAX_LISTED} more" if count > MAX_LISTED else ""
        found[name] = warning(
            LOOKALIKE_TOOL_NAME,
            f"the tool name {_quoted(name)} "
            + (f"looks like {shown}{more} in the catalogue" if twins else "")
            + (" and " if twins and invisible else "")
            + ("holds invisible format characters" if invisible else "")
            + "; a caller may pick the wrong tool. Use a distinct, visible name.",
        )
    return found


def _quoted(name: str) -> str:
    """Quote a name for a message: escaped (invisible characters show), at most 60 characters.

    :param name: a tool name.
    :return: its ASCII repr, cut.
    """
    text = ascii(name)
    return text if len(text) <= 60 else text[:57] + "..."


def with_lookalike_warnings(mechs: List[Mech]) -> List[Mech]:
    """Set each mech's look-alike warnings to those of the current names.

    A mech whose warnings do not change is returned as the same object (its cached
    digest holds); earlier look-alike warnings are replaced, never accumulated.

    :param mechs: the catalogue's entries.
    :return: the entries, with their look-alike warnings.
    """
    names = sorted({t.name for m in mechs for t in m.tools})
    found = lookalike_problems(names)
    out: List[Mech] = []
    for mech in mechs:
        own: Tuple[Problem, ...] = tuple(
            found[t.name] for t in mech.tools if t.name in found
        )
        kept = tuple(p for p in mech.problems if p.code != LOOKALIKE_TOOL_NAME)
        problems = kept + tuple(dict.fromkeys(own))
        out.append(
            mech if problems == mech.problems else replace(mech, problems=problems)
        )
    return out
