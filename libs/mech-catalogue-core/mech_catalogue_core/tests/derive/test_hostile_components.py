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

"""Anyone's package and gateway bytes reach these readers: a problem, never an exception.

``component.yaml`` comes from whoever points a ``code_uri`` at a package, a component's
metadata from whoever registers it, response headers from any gateway. Before these
tests, a 14-byte ``version: 2001-13-45``, a 5,000-digit integer, 600 nested brackets or an
integer key in ``params`` raised out of derivation (``ValueError``, ``RecursionError``,
``TypeError``) and stopped the agent; 367 bytes of nested aliases expanded to 21 MB.
"""

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mech_catalogue_core.derive.code_uri import (
    MAX_METADATA_DEPTH,
    CodeReadError,
    code_uri_cid,
)
from mech_catalogue_core.derive.package import (
    MAX_COMPONENT_DEPTH,
    parse_component,
)
from mech_catalogue_core.derive.results import (
    DeriveError,
)
from mech_catalogue_core.ipfs.gateways import (
    retry_after_seconds,
)
from mech_catalogue_core.ipfs.size_cap import (
    content_range_total,
)
from mech_catalogue_core.model import problems as P

TOOL = "entry_point: tool.py\ncallable: run\n"


def _laughs(levels: int) -> str:
    """A billion-laughs document: each level a list of nine aliases of the one below."""
    lines = ["l0: &l0 [lol]"]
    for level in range(1, levels + 1):
        aliases = ", ".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{aliases}]")
    return TOOL + "\n".join(lines) + f"\nname: *l{levels}\n"


def _refused(text: str) -> str:
    """Parse ``text``; return the INVALID_COMPONENT_YAML message it must give."""
    with pytest.raises(DeriveError) as raised:
        parse_component(text.encode(), "pkg/component.yaml")
    assert raised.value.problem.code == P.INVALID_COMPONENT_YAML
    assert raised.value.problem.message.startswith("pkg/component.yaml: ")
    return raised.value.problem.message


@pytest.mark.parametrize(
    "extra, said",
    [
        ("version: !!timestamp 2001-13-45\n", "month must be in 1..12"),
        ("x: " + "7" * 5000 + "\n", "integer string conversion"),
        ("x: " + "[" * 600 + "]" * 600 + "\n", f"deeper than {MAX_COMPONENT_DEPTH}"),
        ("x:\n" + "".join("  " * i + "- \n" for i in range(1, 60)), "deeper than"),
        ("a: &anchor [1, 2]\nb: *anchor\n", "aliases"),
        ("params: {7: seven}\n", "/params/7 holds a value JSON cannot hold"),
        ("params: {[a]: b}\n", "unhashable"),
        ("data: !!binary aGVsbG8=\n", "/data holds"),
        ("names: !!set {a, b}\n", "/names holds"),
        ("when: !!timestamp 2001-01-01\n", "/when holds"),
        ("rate: .nan\n", "/rate holds"),
        ("rate: -.inf\n", "/rate holds"),
        ("big: 9007199254740993\n", "/big holds"),
        ("run: !!python/object/apply:os.system [id]\n", "could not determine"),
    ],
)
def test_hostile_component_yaml_is_a_problem(extra: str, said: str) -> None:
    """Each kind that raised, expanded or built a non-JSON value is INVALID_COMPONENT_YAML."""
    assert said in _refused(TOOL + extra)


def test_nested_aliases_are_refused_before_they_expand() -> None:
    """Nine levels of nine aliases (9**9 leaves from 500 bytes): refused at the first alias."""
    text = _laughs(9)
    assert len(text) < 600
    assert "aliases" in _refused(text)


@pytest.mark.parametrize(
    "extra, key, value",
    [
        ("version: 2001-13-45\n", "version", "2001-13-45"),
        ("released: 2001-01-01\n", "released", "2001-01-01"),
        ("params: {2001-01-01: x}\n", "params", {"2001-01-01": "x"}),
        ("limit: 9007199254740991\n", "limit", 9007199254740991),
        ("params: {a: [1, 2.5, true, null]}\n", "params", {"a": [1, 2.5, True, None]}),
    ],
)
def test_date_like_scalars_stay_strings_and_json_values_pass(
    extra: str, key: str, value: Any
) -> None:
    """No implicit dates (as in JSON); what JSON holds is read as before."""
    assert parse_component((TOOL + extra).encode(), "c.yaml")[key] == value


def _json_like(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_like(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_like(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


@given(
    st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!,?#|>'\"\n 12.")), max_size=80)
)
def test_any_text_gives_a_json_like_mapping_or_a_problem(body: str) -> None:
    """YAML punctuation in any order: a mapping of JSON values, or DeriveError, nothing else."""
    try:
        component = parse_component((TOOL + body).encode(), "c.yaml")
    except DeriveError as exc:
        assert exc.problem.code == P.INVALID_COMPONENT_YAML
        return
    assert _json_like(component)
    assert json.dumps(component)


@pytest.mark.parametrize(
    "metadata",
    [
        b"[" * 60_000,
        b'{"a": ' * (MAX_METADATA_DEPTH + 1) + b"1" + b"}" * (MAX_METADATA_DEPTH + 1),
    ],
)
def test_component_metadata_nested_past_the_cap_is_not_read(metadata: bytes) -> None:
    """60,000 brackets raised RecursionError from json.loads; now code_uri_missing."""
    with pytest.raises(CodeReadError) as raised:
        code_uri_cid(metadata, "component 3")
    assert raised.value.problem.code == P.CODE_URI_MISSING
    assert f"deeper than {MAX_METADATA_DEPTH}" in raised.value.problem.message


@pytest.mark.parametrize(
    "value",
    [
        "bytes 0-10/" + "9" * 5000,  # int() past 4,300 digits raised ValueError
        "bytes 0-10/\u0663",  # an Arabic-Indic digit matched \d
        "bytes \u0660-10/100",
    ],
)
def test_a_content_range_no_file_has_is_unreadable(value: str) -> None:
    """A gateway's Content-Range of absurd or non-ASCII digits reads as absent."""
    assert content_range_total(value) is None


@pytest.mark.parametrize("value", ["\u00b2", "\u0663", "1\u00b2"])
def test_a_retry_after_of_non_ascii_digits_is_unreadable(value: str) -> None:
    """``"²".isdigit()`` is true and ``float("²")`` raised ValueError; now unreadable."""
    assert retry_after_seconds(value, 0.0, 60.0) is None
