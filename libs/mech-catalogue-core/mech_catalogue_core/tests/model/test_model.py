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

"""The immutable catalogue model: serialisation, digest, queries."""

import dataclasses

import pytest
from mech_catalogue_core.manifest.parsing import (
    parse_document,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    STATUS_INVALID,
    STATUS_OK,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
    SHAPE_ARGUMENTS_V1,
    SHAPE_INPUT_SCHEMA,
    SHAPE_KWARGS,
    Argument,
    MechRef,
    Provenance,
    Tool,
)
from mech_catalogue_core.tests.manifest_shapes import (
    TOOL_METADATA,
    TOOLS_ONLY,
    V1_TYPED,
)

REF_A = MechRef(100, REGISTRY_COMPLEMENTARY_SERVICE, "0x" + "aa" * 20, 7)
REF_B = MechRef(100, REGISTRY_LEGACY_MECH, "0x" + "bb" * 20, 2)
REF_C = MechRef(1, REGISTRY_LEGACY_MECH, "0x" + "cc" * 20, 9)


def _mech(ref: MechRef, document: dict, block: int = 10) -> Mech:
    result = parse_document(document)
    return Mech.from_manifest(
        ref,
        result.manifest,
        result.problems,
        digest="0x" + "12" * 32,
        cid="bafy-test",
        observed_block=block,
    )


def _catalogue() -> Catalogue:
    bad = Mech.from_manifest(
        REF_C, None, (P.error(P.INVALID_JSON, "broken"),), observed_block=3
    )
    return Catalogue.build(
        [_mech(REF_A, V1_TYPED), _mech(REF_B, TOOL_METADATA, 12), bad]
    )


def test_round_trip_and_digest_are_stable() -> None:
    """to_json/from_json round-trips; the digest does not depend on build order."""
    catalogue = _catalogue()
    again = Catalogue.from_json(catalogue.to_json())
    assert again == catalogue
    assert again.digest() == catalogue.digest()
    reordered = Catalogue.build(reversed(catalogue.mechs))
    assert reordered.digest() == catalogue.digest()
    assert len(catalogue.digest()) == 64


def test_digest_changes_with_content() -> None:
    """Any change to a tool changes the digest."""
    catalogue = _catalogue()
    mech = catalogue.mechs[1]
    renamed = dataclasses.replace(
        mech, tools=(dataclasses.replace(mech.tools[0], description="other"),)
    )
    assert Catalogue.build([*catalogue.mechs, renamed]).digest() != catalogue.digest()


def test_model_is_immutable() -> None:
    """Frozen dataclasses; JSON accessors hand out copies."""
    tool = _catalogue().tools_named("swap-quote")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        tool.name = "x"  # type: ignore[misc]
    schema = tool.arguments[0].schema
    schema["type"] = "number"
    assert tool.arguments[0].schema["type"] == "string"
    assert isinstance(tool.arguments, tuple)
    hash(tool)


def test_queries() -> None:
    """By name, by mech, provenance, errors, freshness."""
    catalogue = _catalogue()
    assert [m.ref for m in catalogue.mechs] == sorted([REF_A, REF_B, REF_C])
    (quote,) = catalogue.tools_named("swap-quote")
    assert (
        quote.provenance.mech == REF_A and quote.provenance.shape == SHAPE_ARGUMENTS_V1
    )
    assert (
        quote.provenance.cid == "bafy-test"
        and quote.provenance.digest == "0x" + "12" * 32
    )
    assert [t.name for t in catalogue.tools_of(REF_B)] == [
        "market-odds",
        "market-odds-lite",
    ]
    assert catalogue.tools_of(MechRef(5, REGISTRY_LEGACY_MECH, "0x00", 1)) == ()
    assert catalogue.mech_by_key(REF_A.key) is catalogue.mech(REF_A)
    invalid = catalogue.mech(REF_C)
    assert invalid is not None and invalid.status == STATUS_INVALID
    assert [m.ref for m in catalogue.mechs_with_status(STATUS_OK)] == sorted(
        [REF_A, REF_B]
    )
    assert catalogue.errors() == ((REF_C, P.error(P.INVALID_JSON, "broken")),)
    assert len(catalogue.problems()) > len(catalogue.errors())
    assert catalogue.freshness() == 3
    assert [m.ref for m in catalogue.stale(11)] == sorted([REF_C, REF_A])
    assert catalogue.tool_names() == ("market-odds", "market-odds-lite", "swap-quote")


def test_collisions_name_every_mech() -> None:
    """The same tool name from two mechs is reported with both provenances."""
    catalogue = Catalogue.build(
        [_mech(REF_A, TOOLS_ONLY), _mech(REF_B, TOOLS_ONLY), _mech(REF_C, V1_TYPED)]
    )
    collisions = catalogue.collisions()
    assert [c.name for c in collisions] == [
        "guess-weather",
        "roll-dice",
        "summarise-text",
    ]
    assert collisions[0].mechs == tuple(sorted([REF_A, REF_B]))
    assert not _catalogue().collisions()


def test_input_schema_from_arguments() -> None:
    """Required/default/description go into the call schema; untyped tools stay open."""
    quote = _catalogue().tools_named("swap-quote")[0]
    schema = quote.input_schema()
    assert schema["required"] == ["sell_token", "buy_token", "amount"]
    assert schema["properties"]["side"] == {"enum": ["buy", "sell"], "default": "sell"}
    assert schema["additionalProperties"] is False
    odds = _catalogue().tools_named("market-odds")[0]
    assert odds.input_schema() == {"type": "object", "properties": {}}
    assert not odds.is_typed


def test_argument_default_null_is_kept() -> None:
    """A declared default of null differs from no default."""
    arg = Argument.from_dict(
        {"identifier": "x", "type": "any", "default": None, "required": False}
    )
    assert arg.has_default and arg.default is None
    assert Argument.from_dict(arg.to_dict()) == arg
    assert not Argument("y", "int").has_default


@pytest.mark.parametrize(
    "text", ["[]", '{"version": 2, "mechs": []}', '{"mechs": [{"x": 1}]}', "not json"]
)
def test_from_json_rejects_garbage(text: str) -> None:
    """A bad serialised catalogue raises ValueError, not something else."""
    with pytest.raises(ValueError):
        Catalogue.from_json(text)


def test_later_entry_replaces_same_ref() -> None:
    """build() keeps one entry per mech."""
    first, second = _mech(REF_A, TOOLS_ONLY), _mech(REF_A, V1_TYPED)
    assert Catalogue.build([first, second]).mechs == (second,)


def test_with_provenance_carries_every_other_field() -> None:
    """Each field but provenance is kept (a field added later is carried too)."""
    values = {
        f.name: f"value of {f.name}"
        for f in dataclasses.fields(Tool)
        if f.name
        not in ("arguments", "examples_json", "provenance", "output_schema_json")
    }
    tool = Tool(
        **values,
        arguments=(Argument("a", "int"),),
        examples_json=("1",),
        output_schema_json='{"type":"number"}',
        provenance=Provenance(SHAPE_KWARGS),
    )
    other = Provenance(SHAPE_INPUT_SCHEMA, cid="bafk")
    moved = tool.with_provenance(other)
    assert moved == dataclasses.replace(tool, provenance=other)
    assert moved.provenance is other and tool.provenance.shape == SHAPE_KWARGS
