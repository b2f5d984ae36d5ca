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

"""``mech_catalogue_core/model/memo.py``: memos bounded by the text they hold, used by every memo of the domain."""

import json
import re
from pathlib import Path
from typing import Any, Callable, List, Tuple

import pytest
from mech_catalogue_core.catalogue import (
    lookalikes,
)
from mech_catalogue_core.exporters import (
    conformance,
)
from mech_catalogue_core.manifest import (
    parse_tool,
    schema_refs,
    validation,
)
from mech_catalogue_core.model import (
    canonical,
)
from mech_catalogue_core.model import catalogue as model
from mech_catalogue_core.model import memo, types
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
)
from mech_catalogue_core.model.tool import (
    SHAPE_NAME_ONLY,
    Argument,
    Provenance,
)

DOMAIN = Path(model.__file__).resolve().parent.parent


def _calls(function: Callable[..., Any]) -> Tuple[Callable[..., Any], List[Any]]:
    seen: List[Any] = []

    def counted(*args: Any) -> Any:
        seen.append(args)
        return function(*args)

    return counted, seen


def test_same_results_and_lru_cache_counters() -> None:
    """A memoised function answers as the function does; hits and misses are counted."""
    upper, seen = _calls(str.upper)
    memoised = memo.bounded_memo(8, 100)(upper)
    assert [memoised(t) for t in ("a", "b", "a", "a")] == ["A", "B", "A", "A"]
    assert len(seen) == 2
    assert memoised.cache_info() == memo.MemoInfo(2, 2, 8, 2)
    memoised.cache_clear()
    assert memoised.cache_info() == memo.MemoInfo(0, 0, 8, 0)
    assert memoised("a") == "A" and len(seen) == 3


def test_an_oversize_call_is_computed_each_time_and_not_kept() -> None:
    """Key and result together over ``max_chars``: the same result, nothing kept."""
    upper, seen = _calls(str.upper)
    memoised = memo.bounded_memo(8, 10)(upper)
    long = "x" * 6  # 6 characters of key + 6 of result > 10
    assert memoised(long) == memoised(long) == "X" * 6
    assert len(seen) == 2
    assert memoised.cache_info().currsize == 0 and memoised.memo.held == 0
    assert memoised("xy") == "XY" and memoised.memo.held == 4


def test_entries_are_bounded() -> None:
    """Past ``entries`` the memo is emptied: never more than that many."""
    memoised = memo.bounded_memo(3, 100)(str.upper)
    for index in range(20):
        assert memoised(str(index)) == str(index)
        assert memoised.cache_info().currsize <= 3


def test_characters_held_are_bounded_by_the_total() -> None:
    """The characters held never pass ``total_chars`` (default: entries x max_chars)."""
    memoised = memo.bounded_memo(100, 50, total_chars=120)(str.upper)
    for index in range(50):
        memoised(str(index) * 10)
        assert memoised.memo.held <= 120
    assert memo.BoundedMemo(4, 10).total_chars == 40


def test_put_reports_what_it_kept() -> None:
    """``put`` refuses an oversize entry; ``clear`` forgets everything."""
    store = memo.BoundedMemo(2, 5)
    assert not store.put("key", "value")
    assert store.put("k", "v") and store.get("k") == "v" and store.held == 2
    assert store.put("big", None, chars=5) and store.held == 7
    store.clear()
    assert store.get("k") is None and store.held == 0


def test_text_chars_counts_text_through_tuples_lists_and_records() -> None:
    """Text in tuples, lists and slotted records is counted; numbers and None are not."""
    argument = Argument("ab", "str", '{"type":"string"}', True, None, "cde")
    assert memo.text_chars(("ab", b"cd", ["e"], 7, None)) == 5
    assert memo.text_chars(argument) == 2 + 3 + 17 + 3
    assert memo.text_chars((argument,)) == 25
    assert memo.text_chars(Provenance(SHAPE_NAME_ONLY)) == len(SHAPE_NAME_ONLY)


def test_digest_key_keeps_long_texts_out_of_the_memo() -> None:
    """A long text is memoised under its sha2-256: hits still count, the key is small."""
    upper, seen = _calls(len)
    memoised = memo.bounded_memo(8, 100, key=memo.digest_key)(upper)
    long = "y" * (memo.DIGEST_KEY_OVER + 1)
    assert memoised(long) == memoised(long) == len(long)
    assert len(seen) == 1
    keys = list(memoised.memo.store)
    assert len(keys) == 1
    key = keys[0]
    assert memo.text_chars(key) == 32
    assert memo.digest_key(("short",)) == "short"
    assert memo.digest_key(("\ud800" * 5000,)) != memo.digest_key(("\ud801" * 5000,))


LONG = "z" * 100_000

#: (memoised function, a call with long outside text) for every memo of the domain
HOSTILE_CALLS = {
    "validation.schema_error": (
        validation.schema_error,
        (json.dumps({"description": LONG}),),
    ),
    "conformance._meta_schema_error": (
        conformance._meta_schema_error,  # pylint: disable=protected-access
        (json.dumps({"description": LONG}),),
    ),
    "parse_tool.type_schema_text": (
        parse_tool.type_schema_text,
        ("enum", json.dumps([LONG])),
    ),
    "schema_refs._ref_free_rewrite": (
        schema_refs._ref_free_rewrite,  # pylint: disable=protected-access
        (LONG, '{"type": "string"}'),
    ),
    "types._normalise_text": (
        types._normalise_text,  # pylint: disable=protected-access
        ("list[" * 8 + "int" + "]" * 8,),
    ),
    "lookalikes._unicode_skeleton": (
        lookalikes._unicode_skeleton,  # pylint: disable=protected-access
        ("\ufdfa" * 200,),
    ),
    "lookalikes._prototype": (
        lookalikes._prototype,  # pylint: disable=protected-access
        ("\u0430",),
    ),
    "catalogue._body_digest_of": (
        model._body_digest_of,  # pylint: disable=protected-access
        (("n", LONG, "{}", (), (), "", ()),),
    ),
    "catalogue._provenance_text": (
        model._provenance_text,  # pylint: disable=protected-access
        (Provenance(SHAPE_NAME_ONLY, None, LONG),),
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_CALLS))
def test_every_domain_memo_keeps_no_long_outside_text(name: str) -> None:
    """Each memo answers a long input as before (twice the same) and holds little text."""
    function, args = HOSTILE_CALLS[name]
    function.cache_clear()
    first = function(*args)
    assert function(*args) == first
    assert function.__wrapped__(*args) == first
    held = function.memo.held
    assert held <= function.memo.max_chars < len(LONG), held
    assert function.memo.total_chars <= 1 << 23
    function.cache_clear()


def test_the_canonical_text_memo_keeps_no_long_value() -> None:
    """``canonical_text`` of a long value: the same text, not kept; a short one is kept."""
    memo_store = canonical._MEMO  # pylint: disable=protected-access
    memo_store.clear()
    value = {"description": LONG, "k": ["\u00e9"]}
    text = canonical.canonical_text(value)
    assert (
        canonical.canonical_text(value)
        == text
        == canonical.canonical_bytes(value).decode("utf-8")
    )
    assert memo_store.held == 0
    assert canonical.canonical_text({"k": ["\u00e9"]}) == '{"k":["\u00e9"]}'
    assert 0 < memo_store.held <= canonical.CANONICAL_MEMO_CHARS
    memo_store.clear()


#: the domain's remaining ``functools.lru_cache`` uses: none is keyed by outside data
#: larger than one character
ALLOWED_LRU = {
    ("manifest/validation.py", "manifest_validator"),  # no argument, one validator
    ("manifest/parse_tool.py", "shape_provenance"),  # the parser's own shape names
    ("chain/registry.py", "selector"),  # the skill's own ABI signatures
    ("http_api/page_files.py", "page_files"),  # no argument, the page's own files
    ("model/rendered_text.py", "combining_marks"),  # no argument, Unicode's marks
    # keyed by one character: an entry is a few bytes, so bounded by entries is bounded
    ("model/letter_forms.py", "_script_of"),
}


def test_no_memo_of_the_domain_is_bounded_by_entries_only() -> None:
    """Every other memo of the domain goes through ``memo.bounded_memo`` (the kind is closed)."""
    found = set()
    for path in DOMAIN.rglob("*.py"):
        if path.relative_to(DOMAIN).parts[0] == "tests":
            continue
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(
            r"@(?:functools\.)?(?:lru_)?cache\b.*\ndef (\w+)", text
        ):
            found.add((path.relative_to(DOMAIN).as_posix(), match.group(1)))
    assert found == ALLOWED_LRU


def test_a_body_is_charged_at_least_the_text_its_key_holds() -> None:
    """The body memo charges the canonical body's length: never less than its key's text."""
    key = (
        "n\u00e9",
        'd"\n',
        '{"x":"y"}',
        (("t", "td", (Argument("ab", "str", "{}", True, '"v"', "de"),)),),
        (validation.P.warning(validation.P.INVALID_ARGUMENT, "m\u00e9ss\tage", "/p"),),
        "1",
        ("w",),
    )
    model._body_digest_of.cache_clear()  # pylint: disable=protected-access
    digest, chars = (
        model._body_digest_of.__wrapped__(  # pylint: disable=protected-access
            key[:3] + ((),) + key[4:]
        )
    )
    assert len(digest) == 64 and chars >= memo.text_chars(key[:3] + key[4:])


def test_the_schema_memos_hold_bounded_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parser's schema memos keep no entry over their cap and no more than their total."""
    memo_store = parse_tool.SchemaMemo()
    key = "k" * 100
    result = "r" * (parse_tool.SCHEMA_MEMO_ENTRY_CHARS - 99)
    memo_store.put(key, DEFAULT_LIMITS, result, 0)
    assert memo_store.get(key, DEFAULT_LIMITS) is None  # one character over: not kept
    monkeypatch.setattr(parse_tool, "SCHEMA_MEMO_TOTAL_CHARS", 1000)
    memo_store = parse_tool.SchemaMemo()
    for i in range(50):
        memo_store.put(f"{i:03d}" + "k" * 97, DEFAULT_LIMITS, "v" * 100, 0)
        assert memo_store._entries.held <= 1000  # pylint: disable=protected-access
    assert memo_store.get("049" + "k" * 97, DEFAULT_LIMITS) == "v" * 100
