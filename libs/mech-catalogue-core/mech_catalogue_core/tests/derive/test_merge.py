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

"""Merging derived arguments into a mech's tools: declared wins, provenance, disagreements."""

import json
from textwrap import dedent
from typing import Dict

from mech_catalogue_core.derive.code_uri import (
    CodeDerivation,
)
from mech_catalogue_core.derive.derive import (
    derive_source,
)
from mech_catalogue_core.derive.merge import (
    DerivationPlan,
    merge_derivations,
    merge_derived,
    needs_derivation,
    plan_derivation,
)
from mech_catalogue_core.exporters.mcp_tool import (
    META_KEY,
    to_mcp_tool,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_COMPLEMENTARY_SERVICE,
    REGISTRY_LEGACY_MECH,
    REGISTRY_OLAS_AGENT,
    MechRef,
    Tool,
)

REF = MechRef(100, REGISTRY_OLAS_AGENT, "0x" + "ab" * 20, 4)
CID_A = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"
CID_B = "bafybeihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"


def _mech(manifest: Dict) -> Mech:
    parsed = parse_manifest(json.dumps(manifest).encode())
    assert parsed.manifest is not None
    return Mech.from_manifest(REF, parsed.manifest, parsed.problems, cid="bafy-m")


def _derivation(cid: str, tools: str, body: str) -> CodeDerivation:
    source = dedent(f"""
        ALLOWED_TOOLS = [{tools}]
        def run(**kwargs):
            {body}
        """)
    package = derive_source(source)
    return CodeDerivation(cid, package, package.problems, 3)


def _tool(mech: Mech, name: str) -> Tool:
    return next(t for t in mech.tools if t.name == name)


def test_untyped_tools_take_derived_arguments_with_provenance() -> None:
    """Name-only tools get the code's arguments, marked derived with component and CID."""
    mech = _mech({"name": "m", "description": "d", "tools": ["quote", "swap"]})
    assert needs_derivation(mech)
    merged = merge_derived(
        mech,
        [
            (9, _derivation(CID_B, '"quote"', 'return kwargs["pair"], None')),
            (2, _derivation(CID_A, '"quote", "swap"', 'return kwargs["amount"], None')),
        ],
    )
    quote = _tool(merged, "quote")
    # the lowest component id serving a name is used, whatever the input order
    assert [a.identifier for a in quote.arguments] == ["amount"]
    assert (quote.provenance.derived_component, quote.provenance.derived_cid) == (
        2,
        CID_A,
    )
    assert quote.provenance.arguments_source == "derived"
    meta = to_mcp_tool(quote)["_meta"][META_KEY]["provenance"]
    assert meta["arguments"] == "derived"
    assert meta["derived_from"] == {"component_id": 2, "cid": CID_A}
    assert needs_derivation(merged)  # derived arguments follow the code each period
    # provenance survives the catalogue's JSON (shared state, state_dir)
    catalogue = Catalogue.build([merged])
    assert Catalogue.from_json(catalogue.to_json()) == catalogue


def test_declared_arguments_win_and_a_disagreement_is_reported() -> None:
    """A typed tool keeps its declared arguments; the code's different view is a warning."""
    manifest = {
        "name": "m",
        "description": "d",
        "tools": ["quote"],
        "toolMetadata": {
            "quote": {
                "name": "quote",
                "description": "q",
                "input": {"type": "text", "description": "p"},
                "output": {"type": "object", "description": "o"},
                "kwargs": [{"identifier": "pair", "type": "str"}],
            }
        },
    }
    mech = _mech(manifest)
    declared = _tool(mech, "quote").arguments
    assert declared
    merged = merge_derived(
        mech,
        [
            (
                5,
                _derivation(
                    CID_A, '"quote"', 'return int(kwargs["pair"]), kwargs.get("x")'
                ),
            )
        ],
    )
    quote = _tool(merged, "quote")
    assert quote.arguments == declared
    assert quote.provenance.arguments_source == "declared"
    assert (
        to_mcp_tool(quote)["_meta"][META_KEY]["provenance"]["arguments"] == "declared"
    )
    (problem,) = [p for p in merged.problems if p.code == P.DERIVED_ARGUMENTS_DISAGREE]
    assert problem.severity == P.SEVERITY_WARNING
    assert "in the code only: x" in problem.message
    assert "pair is str declared, int in the code" in problem.message
    # agreeing code says nothing
    agreeing = merge_derived(
        mech, [(5, _derivation(CID_A, '"quote"', 'return str(kwargs["pair"]), None'))]
    )
    assert P.DERIVED_ARGUMENTS_DISAGREE not in {p.code for p in agreeing.problems}


def test_a_failed_component_is_a_warning_of_the_mech_and_others_go_on() -> None:
    """One component's fault is reported under the mech; another component still serves."""
    mech = _mech({"name": "m", "description": "d", "tools": ["a", "b"]})
    broken = CodeDerivation(
        CID_B, None, (P.error(P.CODE_OVER_CAPS, f"ipfs://{CID_B}: too many files."),), 1
    )
    merged = merge_derived(
        mech, [(3, broken), (4, _derivation(CID_A, '"b"', 'return kwargs["n"], None'))]
    )
    assert not _tool(merged, "a").arguments
    assert [a.identifier for a in _tool(merged, "b").arguments] == ["n"]
    (problem,) = [p for p in merged.problems if p.code == P.CODE_OVER_CAPS]
    assert problem.severity == P.SEVERITY_WARNING
    assert problem.message.startswith("component 3: ")
    assert not merged.errors


def test_a_reused_mech_follows_its_components_current_code() -> None:
    """Arguments derived in an earlier period are replaced, or dropped with the code."""
    mech = _mech({"name": "m", "description": "d", "tools": ["quote"]})
    first = merge_derived(
        mech, [(2, _derivation(CID_A, '"quote"', 'return kwargs["pair"], None'))]
    )
    assert needs_derivation(first)
    changed = merge_derived(
        first, [(2, _derivation(CID_B, '"quote"', 'return kwargs["amount"], None'))]
    )
    quote = _tool(changed, "quote")
    assert [a.identifier for a in quote.arguments] == ["amount"]
    assert quote.provenance.derived_cid == CID_B
    assert P.DERIVED_ARGUMENTS_DISAGREE not in {p.code for p in changed.problems}
    gone = _tool(merge_derived(first, []), "quote")
    assert not gone.arguments and gone.provenance.arguments_source == "declared"


def _ref(kind: str, registry: str, mech_id: int, chain_id: int = 100) -> MechRef:
    return MechRef(chain_id, kind, "0x" + registry * 20, mech_id)


def _at(ref: MechRef, manifest: Dict) -> Mech:
    parsed = parse_manifest(json.dumps(manifest).encode())
    assert parsed.manifest is not None
    return Mech.from_manifest(ref, parsed.manifest, parsed.problems, cid="bafy-m")


UNTYPED = {"name": "M", "description": "d", "tools": ["t"]}
TYPED = {
    "name": "M",
    "description": "d",
    "tools": [{"name": "t", "kwargs": [{"identifier": "x", "type": "int"}]}],
}


def test_the_plan_names_exactly_the_mechs_whose_code_may_type_them() -> None:
    """Olas agents by registry (sorted), others by their own string code_uri; ok only."""
    agent_b = _ref(REGISTRY_OLAS_AGENT, "bb", 7)
    agent_a2 = _ref(REGISTRY_OLAS_AGENT, "aa", 9)
    agent_a1 = _ref(REGISTRY_OLAS_AGENT, "aa", 3)
    legacy = _ref(REGISTRY_LEGACY_MECH, "cc", 1)
    catalogue = Catalogue.build(
        [
            _at(agent_b, UNTYPED),
            _at(agent_a2, UNTYPED),
            _at(agent_a1, UNTYPED),
            _at(_ref(REGISTRY_OLAS_AGENT, "aa", 4), TYPED),  # nothing to derive
            Mech.from_manifest(_ref(REGISTRY_OLAS_AGENT, "aa", 5), None),  # invalid
            _at(legacy, dict(UNTYPED, code_uri="ipfs://bafy-code")),
            _at(_ref(REGISTRY_LEGACY_MECH, "cc", 2), UNTYPED),  # no pointer
            _at(_ref(REGISTRY_LEGACY_MECH, "cc", 3), dict(UNTYPED, code_uri=7)),
            _at(
                _ref(REGISTRY_COMPLEMENTARY_SERVICE, "dd", 4), dict(TYPED, code_uri="x")
            ),
        ]
    )
    plan = plan_derivation(catalogue)
    assert plan.agents == (
        ((100, agent_a1.registry_address), (3, 9)),
        ((100, agent_b.registry_address), (7,)),
    )
    assert plan.pointers == (
        ((100, legacy.registry_address, 1), "ipfs://bafy-code", legacy.key),
    )
    assert plan_derivation(Catalogue.build([_at(agent_b, TYPED)])) == DerivationPlan(
        (), ()
    )


def test_merging_types_only_the_mechs_found() -> None:
    """A mech with derivations is merged; one without keeps its tools as they were."""
    typed_ref, other_ref = _ref(REGISTRY_OLAS_AGENT, "aa", 1), _ref(
        REGISTRY_OLAS_AGENT, "aa", 2
    )
    catalogue = Catalogue.build([_at(typed_ref, UNTYPED), _at(other_ref, UNTYPED)])
    derivation = _derivation(CID_A, '"t"', 'return kwargs["size"] + 1')
    merged = merge_derivations(
        catalogue,
        {(100, typed_ref.registry_address, 1): [(11, derivation)]},
    )
    by_id = {m.ref.mech_id: m for m in merged.mechs}
    assert [a.identifier for a in by_id[1].tools[0].arguments] == ["size"]
    assert by_id[1].tools[0].provenance.derived_cid == CID_A
    assert by_id[2] == catalogue.mechs[1]
    assert merge_derivations(catalogue, {}).digest() == catalogue.digest()
