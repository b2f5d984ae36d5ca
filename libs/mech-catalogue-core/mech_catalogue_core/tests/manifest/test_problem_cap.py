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

"""One manifest yields a bounded number of problems, whatever its shape (Limits.max_problems)."""

import json
import re
from collections import Counter
from typing import Any, Dict, List

import pytest
from mech_catalogue_core.manifest.parsing import (
    ParseResult,
    parse_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Manifest,
)
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
    Limits,
)

CAP = DEFAULT_LIMITS.max_problems


def _bytes(document: Any) -> bytes:
    return json.dumps(document, separators=(",", ":")).encode()


def _described_bomb(count: int) -> bytes:
    """Shape A: one listed tool, ``count`` unlisted tools in the description's JSON."""
    described = [{"name": f"t{i}", "input": 0} for i in range(count)]
    return _bytes(
        {
            "tools": ["bomb"],
            "description": "w " + json.dumps(described, separators=(",", ":")),
        }
    )


def _argument_bomb(tools: int, arguments: int) -> bytes:
    """Shape B: every tool declares ``arguments`` arguments written as ``{}``."""
    return _bytes(
        {"tools": [{"name": f"t{i}", "kwargs": [{}] * arguments} for i in range(tools)]}
    )


def _duplicate_bomb(tools: int, arguments: int) -> bytes:
    """Shape B': every tool declares the argument ``a`` ``arguments`` times (withholds)."""
    kwargs = [{"identifier": "a", "type": "int"}] * arguments
    return _bytes(
        {"tools": [{"name": f"t{i}", "kwargs": kwargs} for i in range(tools)]}
    )


def _manifest(result: ParseResult) -> Manifest:
    assert result.manifest is not None, result.codes
    return result.manifest


def _summary_counts(result: ParseResult) -> Dict[str, int]:
    """Per-code counts stated by the manifest-level summary (the last problem)."""
    last = result.problems[-1]
    assert last.code == P.PROBLEMS_TRUNCATED and last.path == ""
    listing = re.search(r"\(([^)]*)\)", last.message)
    assert listing is not None, last.message
    return {
        code: int(count.replace(",", ""))
        for code, count in re.findall(r"([a-z_]+) ([0-9,]+)", listing.group(1))
    }


def _assert_capped(result: ParseResult, cap: int = CAP) -> None:
    assert len(result.problems) <= cap + 1
    assert [p.code for p in result.problems].count(P.PROBLEMS_TRUNCATED) >= 1


def test_described_tools_are_read_up_to_the_tool_cap() -> None:
    """Shape A: tools described past max_tools are not read; one problem says so."""
    limits = Limits(max_tools=300)
    result = parse_manifest(_described_bomb(3000), limits)
    assert result.ok and [t.name for t in _manifest(result).tools] == ["bomb"]
    over = [p for p in result.problems if p.code == P.TOO_MANY_DESCRIBED_TOOLS]
    assert len(over) == 1 and "3000" in over[0].message
    _assert_capped(result)
    counts = _summary_counts(result)
    listed = result.codes.count(P.DESCRIPTION_TOOL_NOT_LISTED)
    assert listed + counts[P.DESCRIPTION_TOOL_NOT_LISTED] == 300


def test_described_tools_over_the_cap_reject_when_they_are_the_tools() -> None:
    """With no `tools`, described tools past the cap reject the manifest (as `tools` would)."""
    described = [{"name": f"t{i}", "input": {}} for i in range(31)]
    data = _bytes({"description": json.dumps(described)})
    result = parse_manifest(data, Limits(max_tools=30))
    assert result.manifest is None and result.codes == (P.TOO_MANY_TOOLS,)
    assert parse_manifest(data, Limits(max_tools=31)).ok


def test_argument_bomb_is_capped_and_every_tool_offered_untyped() -> None:
    """Shape B: 100 tools x 10 empty arguments: bounded problems; each argument is dropped.

    An argument without an identifier is a dropped part, so every tool is offered without
    typed arguments (one ``untyped_input`` warning each), none withheld.
    """
    result = parse_manifest(_argument_bomb(100, 10))
    assert result.ok and not _manifest(result).withheld
    assert [t.arguments for t in _manifest(result).tools] == [()] * 100
    _assert_capped(result)
    assert result.problems[-1].severity == P.SEVERITY_WARNING
    listed = Counter(p.code for p in result.problems[:-1])
    total = Counter(listed) + Counter(_summary_counts(result))
    assert total[P.INVALID_ARGUMENT] == 100 * 10
    assert total[P.UNTYPED_INPUT] == 100
    assert total[P.TOOL_WITHHELD] == 0 and total[P.NO_TOOLS] == 0


def test_duplicate_argument_bomb_is_capped_and_every_tool_withheld() -> None:
    """Shape B': 100 tools x 10 repeats of one argument: bounded problems, all withheld."""
    result = parse_manifest(_duplicate_bomb(100, 10))
    assert result.ok and not _manifest(result).tools
    assert len(_manifest(result).withheld) == 100
    _assert_capped(result)
    listed = Counter(p.code for p in result.problems[:-1])
    total = Counter(listed) + Counter(_summary_counts(result))
    assert total[P.DUPLICATE_ARGUMENT] == 100 * 9
    assert total[P.TOOL_WITHHELD] == 100
    assert total[P.NO_TOOLS] == 1


def test_per_tool_argument_problems_are_summarised() -> None:
    """One tool with 50 dropped arguments lists max_argument_problems, then one summary.

    Only dropped arguments are left out, so the summary is a warning and the tool is
    offered (untyped); left-out errors that withhold make it an error (next test).
    """
    result = parse_manifest(_argument_bomb(1, 50), Limits(max_argument_problems=7))
    codes = result.codes
    assert codes.count(P.INVALID_ARGUMENT) == 7
    summary = [p for p in result.problems if p.code == P.PROBLEMS_TRUNCATED]
    assert len(summary) == 1 and not summary[0].is_error
    assert summary[0].path == "/tools/0/kwargs/7" and "43 more" in summary[0].message
    assert "invalid_argument 43" in summary[0].message
    assert [t.name for t in _manifest(result).tools] == ["t0"]
    assert not _manifest(result).withheld


def test_withholding_errors_left_out_make_the_summary_an_error() -> None:
    """50 repeats of one argument, 7 listed: the summary is an error; the tool is withheld."""
    result = parse_manifest(_duplicate_bomb(1, 51), Limits(max_argument_problems=7))
    assert result.codes.count(P.DUPLICATE_ARGUMENT) == 7
    summary = [p for p in result.problems if p.code == P.PROBLEMS_TRUNCATED]
    assert len(summary) == 1 and summary[0].is_error
    assert "duplicate_argument 43" in summary[0].message
    assert [t.name for t in _manifest(result).withheld] == ["t0"]


def test_argument_warnings_left_out_do_not_withhold() -> None:
    """Only warnings left out of a tool's list: the summary is a warning; the tool is offered."""
    kwargs = [{"identifier": f"a{i}", "type": f"weird{i}"} for i in range(30)]
    result = parse_manifest(_bytes({"tools": [{"name": "w", "kwargs": kwargs}]}))
    assert [t.name for t in _manifest(result).tools] == ["w"]
    assert len(_manifest(result).tools[0].arguments) == 30
    summary = [p for p in result.problems if p.code == P.PROBLEMS_TRUNCATED]
    assert len(summary) == 1 and not summary[0].is_error


def test_full_size_shapes_are_capped() -> None:
    """The adversary's full-size inputs: at most cap + 1 problems each."""
    a = parse_manifest(_described_bomb(30_000))
    assert len(a.problems) == CAP + 1 and a.manifest is not None
    b = parse_manifest(_argument_bomb(1000, 100))
    assert len(b.problems) == CAP + 1 and len(_manifest(b).tools) == 1000
    c = parse_manifest(_duplicate_bomb(1000, 30))
    assert len(c.problems) == CAP + 1 and len(_manifest(c).withheld) == 1000


OTHER_SHAPES: List[Dict[str, Any]] = [
    {"tools": ["same"] * 500},
    {"tools": [{"name": f"k{i}", "kwargs": 5} for i in range(300)]},
    {"tools": [{"name": f"s{i}", "input": {"schema": 7}} for i in range(300)]},
    {
        "tools": [
            {"name": f"o{i}", "kwargs": [], "output": {"schema": {"type": 3}}}
            for i in range(300)
        ]
    },
    {"tools": [""] * 400 + [f"x{i}" for i in range(10)]},
]


@pytest.mark.parametrize(
    "document",
    OTHER_SHAPES,
    ids=["duplicates", "kwargs_type", "input_schema", "output_schema", "bad_names"],
)
def test_cap_holds_for_other_shapes(document: Dict[str, Any]) -> None:
    """Duplicate tools, wrong kwargs types, bad schemas, bad names: all capped, counts add up."""
    data = _bytes(document)
    uncapped = parse_manifest(data, Limits(max_problems=10**9))
    capped = parse_manifest(data)
    assert len(uncapped.problems) > CAP + 1
    assert len(capped.problems) == CAP + 1
    kept = Counter(p.code for p in capped.problems[:-1])
    assert kept + Counter(_summary_counts(capped)) == Counter(uncapped.codes)
    assert capped.manifest == uncapped.manifest  # the cap changes only the problem list


def test_errors_are_kept_before_warnings_in_document_order() -> None:
    """Warnings come first in the document, yet errors fill the cap, in their order."""
    tools: List[Dict[str, Any]] = [{"name": f"u{i}"} for i in range(20)]  # warnings
    tools += [{"name": f"e{i}", "kwargs": 1} for i in range(20)]  # wrong type: errors
    data = _bytes({"tools": tools, "toolMetadata": {}})
    result = parse_manifest(data, Limits(max_problems=15))
    kept = result.problems[:-1]
    assert len(kept) == 15 and all(p.is_error for p in kept)
    everything = parse_manifest(data, Limits(max_problems=10**9))
    assert kept == tuple(p for p in everything.problems if p.is_error)[:15]


def test_same_bytes_give_the_same_problems() -> None:
    """Determinism: the kept problems and the summary depend on the bytes alone."""
    data = _argument_bomb(40, 30)
    assert parse_manifest(data).problems == parse_manifest(data).problems


def test_truncation_never_offers_a_withheld_tool() -> None:
    """A tool whose error is cut from the list stays withheld."""
    tools = [
        {"name": f"u{i}", "kwargs": [{"identifier": "a", "type": "zz"}]}
        for i in range(50)
    ]
    tools.append({"name": "bad", "kwargs": [{"identifier": "a", "type": "int"}] * 2})
    data = _bytes({"tools": tools})
    result = parse_manifest(data, Limits(max_problems=5))
    assert [t.name for t in _manifest(result).withheld] == ["bad"]
    assert "bad" not in {t.name for t in _manifest(result).tools}
    assert len(_manifest(result).tools) == 50
    assert result.errors  # an error still shows the manifest is not clean
