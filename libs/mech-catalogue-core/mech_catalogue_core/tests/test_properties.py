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

"""Property tests (hypothesis): parse never raises, canonical form round-trips, CIDs round-trip."""

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mech_catalogue_core.ipfs.cid import (
    CidError,
    cid_to_digest,
    digest_to_cid,
    to_v0,
    to_v1,
    verify,
)
from mech_catalogue_core.manifest.parsing import (
    parse_document,
    parse_manifest,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.canonical import (
    canonical_bytes,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.hidden_characters import name_hiding
from mech_catalogue_core.model.tool import MechRef
from mech_catalogue_core.tests.kubo import Kubo

SAFE_INT = st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
TEXT = st.text(max_size=20)
SCALARS = st.none() | st.booleans() | SAFE_INT | FINITE | TEXT
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(TEXT, inner, max_size=5),
    max_leaves=30,
)
KEYS = st.sampled_from(
    [
        "tools",
        "toolMetadata",
        "name",
        "description",
        "input",
        "output",
        "schema",
        "arguments",
        "kwargs",
        "identifier",
        "type",
        "required",
        "default",
        "enum",
        "properties",
        "examples",
        "specVersion",
    ]
)
TYPE_TERMS = st.sampled_from(
    [
        "int",
        "str",
        "hexAddress",
        "list[int]",
        "enum",
        "text",
        "bogus",
        "optional[float]",
    ]
)
# Manifest-like values: the field names the parser looks for, in random places and types.
MANIFESTISH = st.recursive(
    SCALARS | TYPE_TERMS,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(KEYS | TEXT, inner, max_size=6),
    max_leaves=40,
)
REF = MechRef(1, "legacy_mech_registry", "0x" + "00" * 20, 1)


def _assert_well_formed(result: Any) -> None:
    for problem in result.problems:
        assert (
            problem.code
            and problem.message
            and problem.severity in ("error", "warning")
        )
    if result.manifest is None:
        assert result.errors
    else:
        catalogue = Catalogue.build(
            [Mech.from_manifest(REF, result.manifest, result.problems)]
        )
        assert Catalogue.from_json(catalogue.to_json()) == catalogue


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_parse_never_raises_on_bytes(data: bytes) -> None:
    """Arbitrary bytes: a result, never an exception."""
    _assert_well_formed(parse_manifest(data))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(MANIFESTISH)
def test_parse_never_raises_on_manifest_like_json(document: Any) -> None:
    """Arbitrary JSON built from manifest field names: problems, never exceptions.

    Parsing the bytes also equals parsing the value.

    :param document: the generated value.
    """
    result = parse_document(document)
    _assert_well_formed(result)
    assert parse_manifest(json.dumps(document).encode()) == result


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.just("tools") | TEXT, MANIFESTISH, max_size=4),
    st.lists(MANIFESTISH, max_size=3),
)
def test_tools_with_random_metadata(top: dict, names: list) -> None:
    """Random tool lists and metadata keep every valid, unique name: offered or withheld.

    A withheld tool has an error about its metadata (errors withhold, warnings inform).

    :param top: other top-level fields.
    :param names: the metadata of each tool.
    """
    metadata = {str(i): meta for i, meta in enumerate(names)}
    document = {
        **top,
        "tools": [str(i) for i in range(len(names))],
        "toolMetadata": metadata,
    }
    result = parse_document(document)
    assert result.manifest is not None
    withheld = {t.name for t in result.manifest.withheld}
    assert set(result.manifest.tool_names) | withheld == {
        str(i) for i in range(len(names))
    }
    assert not withheld & set(result.manifest.tool_names)
    for name in withheld:
        where = f"/toolMetadata/{name}"
        assert any(
            p.is_error and p.code != P.TOOL_WITHHELD and p.path.startswith(where)
            for p in result.problems
        )


@settings(max_examples=300)
@given(JSON)
def test_canonical_form_round_trips(value: Any) -> None:
    """canonical(decode(canonical(v))) == canonical(v), and strict decoding accepts it."""
    first = canonical_bytes(value)
    decoded = decode_json(first)
    assert decoded.ok, decoded.problems
    assert canonical_bytes(decoded.value) == first


@settings(max_examples=300)
@given(st.text(max_size=120))
def test_cid_parse_never_crashes(text: str) -> None:
    """Arbitrary strings are a digest or a CidError, nothing else."""
    try:
        codec, digest = cid_to_digest(text)
    except CidError as exc:
        assert exc.problem.code in ("invalid_cid", "unsupported_cid")
    else:
        assert codec in ("dag-pb", "raw") and len(digest) == 66


@settings(max_examples=300)
@given(
    st.binary(min_size=32, max_size=32),
    st.sampled_from(["dag-pb", "raw"]),
    st.sampled_from(["base32", "base16", "base58btc"]),
)
def test_cid_conversions_round_trip(digest: bytes, codec: str, base: str) -> None:
    """Digest -> CID (any base) -> digest, and v0 <-> v1 for dag-pb."""
    text = digest_to_cid(digest, codec, 1, base)
    assert cid_to_digest(text) == (codec, "0x" + digest.hex())
    assert to_v1(text) == digest_to_cid(digest, codec)
    if codec == "dag-pb":
        v0 = to_v0(text)
        assert v0.startswith("Qm") and to_v1(v0) == to_v1(text)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.one_of(
        st.binary(max_size=4096),
        # straddles the 256 KiB chunk boundary; a short random seed repeated keeps draws small
        st.builds(
            lambda seed, size: (seed * (size // len(seed) + 1))[:size],
            st.binary(min_size=1, max_size=64),
            st.integers(min_value=262_100, max_value=262_200),
        ),
    ),
    st.sampled_from(
        [(), ("--cid-version", "1"), ("--cid-version", "1", "--raw-leaves=false")]
    ),
)
def test_verify_matches_kubo_on_random_bytes(
    kubo: Kubo, data: bytes, flags: tuple
) -> None:
    """Hypothesis-generated bytes through the real kubo: our re-hash names the same CID."""
    kubo_cid = kubo.cid(data, *flags)
    _, digest = cid_to_digest(kubo_cid)
    result = verify(data, digest)
    assert result.ok and result.cid == to_v1(kubo_cid)


@settings(max_examples=500)
@given(st.text() | st.text(alphabet=st.characters(max_codepoint=0x9F)))
def test_string_fast_path_is_rfc8785(text: str) -> None:
    """canonical_text's json.dumps shortcut for strings equals the rfc8785 package's output."""
    import rfc8785  # pylint: disable=import-outside-toplevel
    from mech_catalogue_core.model.canonical import (  # pylint: disable=import-outside-toplevel
        CanonicalizationError,
        canonical_text,
    )

    try:
        expected = rfc8785.dumps(text).decode("utf-8")
    except rfc8785.CanonicalizationError:
        with pytest.raises(CanonicalizationError):
            canonical_text(text)
    else:
        assert canonical_text(text) == expected


IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
NAMES = st.sampled_from(["a", "b", "tool-x", "\u00e9t\u00e9 \U0001f600"]) | st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E),
    min_size=1,
    max_size=12,
)
OBJECT_SCHEMAS = st.sampled_from(
    [{"type": "integer"}, {"type": "string", "minLength": 1}, {}, {"enum": [1, "a"]}]
)
ARG = st.fixed_dictionaries(
    {"identifier": IDENT, "type": TYPE_TERMS},
    optional={
        "description": TEXT,
        "required": st.booleans(),
        "default": SCALARS,
        "enum": st.lists(SCALARS, min_size=1, max_size=3),
        "schema": OBJECT_SCHEMAS,
    },
)
ARGS = st.lists(ARG, max_size=4, unique_by=lambda a: a["identifier"])
IO = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(["text", "object"]),
        "description": TEXT,
        "schema": st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(
                    IDENT, OBJECT_SCHEMAS | st.just(True), max_size=3
                ),
            },
            optional={"required": st.lists(IDENT, max_size=2, unique=True)},
        ),
    },
)
SPEC_TOOL = st.fixed_dictionaries(
    {},
    optional={
        "description": TEXT,
        "input": IO,
        "output": IO,
        "arguments": ARGS,
        "kwargs": ARGS | st.dictionaries(IDENT, TYPE_TERMS, max_size=3),
        "examples": st.lists(MANIFESTISH, max_size=2),
        "x-extra": MANIFESTISH,
    },
)
SPEC_TOP = st.fixed_dictionaries(
    {},
    optional={
        "name": TEXT,
        "description": TEXT,
        "specVersion": st.just("1"),
        "x-extra": MANIFESTISH,
    },
)


#: names the spec's text allows: no markup that hides text (JSON Schema cannot say so)
SPEC_NAMES = NAMES.filter(lambda name: not name_hiding(name))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(SPEC_NAMES, max_size=4, unique=True),
    st.dictionaries(SPEC_NAMES, SPEC_TOOL, max_size=3),
    SPEC_TOP,
)
def test_spec_valid_means_no_parse_errors(
    names: list, metadata: dict, top: dict
) -> None:
    """Manifests built to the specification pass the schema and parse without errors.

    Argument identifiers are unique here: JSON Schema cannot say so, the spec text does,
    and readers drop repeats (``duplicate_argument``); so are names without markup that
    hides text (``invalid_tool_name``).

    :param names: the `tools` list.
    :param metadata: the `toolMetadata` object.
    :param top: other top-level fields.
    """
    document = {**top, "tools": names, "toolMetadata": metadata}
    assert not validate_manifest(document), validate_manifest(document)
    result = parse_document(document)
    assert result.manifest is not None
    assert not result.errors, (document, result.errors)
    typed = [
        t for t in result.manifest.tools if metadata.get(t.name, {}).get("arguments")
    ]
    assert all(t.arguments for t in typed)


def _true_depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_true_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_true_depth(v) for v in value), default=0)
    return 0


TRICKY_TEXT = st.text(alphabet='[]{}"\\\\ab', max_size=8)
TRICKY_JSON = st.recursive(
    st.none() | TRICKY_TEXT,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(TRICKY_TEXT, inner, max_size=3),
    max_leaves=25,
)


@settings(max_examples=400)
@given(TRICKY_JSON, st.integers(min_value=0, max_value=6))
def test_nesting_depth_is_exact(value: Any, cap: int) -> None:
    """Bracket depth from bytes equals the decoded value's depth, brackets in strings ignored."""
    from mech_catalogue_core.manifest.validation import (  # pylint: disable=import-outside-toplevel
        nesting_depth,
    )

    text = json.dumps(value, ensure_ascii=False)
    depth = _true_depth(value)
    assert nesting_depth(text) == depth
    assert nesting_depth(text.encode(), cap) == min(depth, cap + 1)
