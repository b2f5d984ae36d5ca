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

"""Merging arguments derived from components' code into a mech's tools.

Rules (docs/manifest-spec.md, "Arguments derived from code"):

- a component's package serves the tool names its code declares (``ALLOWED_TOOLS`` /
  ``AVAILABLE_TOOLS``); the first component (lowest id) serving a name is used;
- a tool whose manifest declares no argument takes the derived arguments, and its
  provenance says ``derived`` with the component id and the package CID;
- a tool with declared arguments keeps them (declared always wins); when the derived
  ones differ (other identifiers, types or requiredness) a
  ``derived_arguments_disagree`` warning says how;
- a component whose code could not be read or derived adds its problem to the mech as a
  warning: the mech and its other tools go on.

Pure and deterministic: the same mech and derivations give the same result on every agent.
"""

from dataclasses import dataclass, replace
from typing import Dict, List, Mapping, Sequence, Tuple

from mech_catalogue_core.derive.code_uri import (
    CodeDerivation,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_OK,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.problems import (
    DERIVED_ARGUMENTS_DISAGREE,
    Problem,
    unique_problems,
    warning,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_OLAS_AGENT,
    Argument,
    Tool,
)
from mech_catalogue_core.model.types import ANY

#: (component id, its derivation) as :func:`merge_derived` takes them
ComponentDerivation = Tuple[int, CodeDerivation]
#: a mech as derivations are filed: (chain id, registry address, mech id)
MechKey = Tuple[int, str, int]


@dataclass(frozen=True)
class DerivationPlan:
    """What deriving a catalogue's untyped tools reads, found by :func:`plan_derivation`.

    :param pointers: ``(mech key, code_uri, catalogue entry key)`` of mechs outside the
        Olas AgentRegistry whose metadata names their own code
        (``from_chain.code_pointer_reader``), in catalogue order.
    :param agents: ``((chain id, AgentRegistry address), agent ids)``, sorted, for
        ``from_chain.code_arguments_reader``.
    """

    pointers: Tuple[Tuple[MechKey, str, str], ...]
    agents: Tuple[Tuple[Tuple[int, str], Tuple[int, ...]], ...]


def plan_derivation(catalogue: Catalogue) -> DerivationPlan:
    """Find the mechs whose untyped tools their code may type.

    Only ``ok`` mechs with a tool needing it (:func:`needs_derivation`): Olas agents by
    their AgentRegistry (their components are listed on chain), other mechs by the
    ``code_uri`` string their own metadata carries (none: nothing to follow).

    :param catalogue: the catalogue built from the manifests.
    :return: the plan (empty when nothing needs deriving).
    """
    pointers: List[Tuple[MechKey, str, str]] = []
    agents: Dict[Tuple[int, str], List[int]] = {}
    for mech in catalogue.mechs:
        if mech.status != STATUS_OK or not needs_derivation(mech):
            continue
        ref = mech.ref
        if ref.registry_kind == REGISTRY_OLAS_AGENT:
            agents.setdefault((ref.chain_id, ref.registry_address), []).append(
                ref.mech_id
            )
            continue
        pointer = mech.extra.get("code_uri")
        if isinstance(pointer, str):
            key = (ref.chain_id, ref.registry_address, ref.mech_id)
            pointers.append((key, pointer, ref.key))
    return DerivationPlan(
        tuple(pointers),
        tuple((where, tuple(ids)) for where, ids in sorted(agents.items())),
    )


def merge_derivations(
    catalogue: Catalogue, found: Mapping[MechKey, Sequence[ComponentDerivation]]
) -> Catalogue:
    """Merge each mech's derivations (:func:`merge_derived`) and rebuild the catalogue.

    :param catalogue: the catalogue the plan was made from.
    :param found: derivations by mech key; mechs without an entry are kept as they are.
    :return: the catalogue with derived arguments merged in.
    """
    mechs = []
    for mech in catalogue.mechs:
        ref = mech.ref
        components = found.get((ref.chain_id, ref.registry_address, ref.mech_id))
        mechs.append(mech if components is None else merge_derived(mech, components))
    return Catalogue.build(mechs)


def needs_derivation(mech: Mech) -> bool:
    """Tell whether some tool of a mech declares no argument (so code may say more).

    A tool whose arguments were derived in an earlier period counts too: a mech entry
    reused from the last catalogue must follow its components' current code.

    :param mech: the mech.
    :return: True when at least one of its tools has no declared arguments.
    """
    return any(not tool.arguments or tool.provenance.derived_cid for tool in mech.tools)


def merge_derived(mech: Mech, derivations: Sequence[ComponentDerivation]) -> Mech:
    """Give the mech's untyped tools the arguments derived from its components' code.

    :param mech: the mech as parsed from its manifest.
    :param derivations: its components' derivations (any order).
    :return: the mech with derived arguments and provenance merged in, and the
        derivation problems and disagreements added to its problems (as warnings).
    """
    serving: Dict[str, Tuple[int, str, Tuple[Argument, ...]]] = {}
    problems: List[Problem] = []
    for component_id, derivation in sorted(derivations, key=lambda d: d[0]):
        problems.extend(
            warning(p.code, f"component {component_id}: {p.message}", p.path)
            for p in derivation.problems
        )
        if derivation.package is None:
            continue
        arguments = derivation.package.to_arguments()
        for name in derivation.package.tool_names:
            serving.setdefault(name, (component_id, derivation.cid, arguments))
    tools: List[Tool] = []
    for tool in map(_as_declared, mech.tools):
        found = serving.get(tool.name)
        if found is None:
            tools.append(tool)
            continue
        component_id, cid, arguments = found
        if not tool.arguments:
            tools.append(
                replace(
                    tool,
                    arguments=arguments,
                    provenance=replace(
                        tool.provenance, derived_component=component_id, derived_cid=cid
                    ),
                )
            )
            continue
        tools.append(tool)
        difference = _difference(tool.arguments, arguments)
        if difference:
            problems.append(
                warning(
                    DERIVED_ARGUMENTS_DISAGREE,
                    f"tool {tool.name!r}: the declared arguments differ from those "
                    f"derived from component {component_id} (ipfs://{cid}): "
                    f"{difference}; the declared ones are served. Fix the manifest or "
                    "the code so they agree.",
                    f"/toolMetadata/{tool.name}",
                )
            )
    return replace(
        mech,
        tools=tuple(tools),
        problems=unique_problems(tuple(mech.problems) + tuple(problems)),
    )


def _as_declared(tool: Tool) -> Tool:
    """The tool as its manifest declares it (arguments derived earlier taken off)."""
    if not tool.provenance.derived_cid:
        return tool
    return replace(
        tool,
        arguments=(),
        provenance=replace(tool.provenance, derived_component=0, derived_cid=""),
    )


def _difference(declared: Sequence[Argument], derived: Sequence[Argument]) -> str:
    ours = {a.identifier: a for a in declared}
    theirs = {a.identifier: a for a in derived}
    parts: List[str] = []
    only_declared = sorted(set(ours) - set(theirs))
    only_derived = sorted(set(theirs) - set(ours))
    if only_declared:
        parts.append(f"declared only: {', '.join(only_declared)}")
    if only_derived:
        parts.append(f"in the code only: {', '.join(only_derived)}")
    for name in sorted(set(ours) & set(theirs)):
        a, b = ours[name], theirs[name]
        if b.type not in (a.type, ANY):  # "any": the code does not say
            parts.append(f"{name} is {a.type} declared, {b.type} in the code")
        elif a.required != b.required:
            parts.append(
                f"{name} is {'required' if a.required else 'optional'} declared, "
                f"{'required' if b.required else 'optional'} in the code"
            )
    return "; ".join(parts)
