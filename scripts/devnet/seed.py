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

"""Seed a devnet: register the fixture manifests in every registry kind.

The plan below is the contract between the devnet and the tests that read it: each
step adds one fixture file (``scripts/devnet/fixtures/``) to kubo and writes its digest
to one registry, and is recorded in ``devnet.json`` (``registered``) with its shape.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Dict, Tuple

from mech_catalogue_cli.devnet.state import (
    COMPLEMENTARY_SERVICE_METADATA,
    LEGACY_MECH_REGISTRY,
    OLAS_AGENT_REGISTRY,
    RegisteredManifest,
)
from scripts.devnet.marketplace import deploy_marketplace, seed_marketplace

if TYPE_CHECKING:  # pragma: no cover
    from scripts.devnet.devnet import Devnet

FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"
#: the tool package component 1's ``code_uri`` points to (added to kubo as a directory)
TOOL_PACKAGE_DIR = FIXTURES_DIR / "tool_package" / "prediction_request_rag"


@dataclass(frozen=True)
class SeedStep:
    """One manifest written to one registry.

    :param registry: registry kind (see :mod:`mech_catalogue_cli.devnet.state`).
    :param key: a name for the mech within the plan; steps with the same key and registry
        address the same id (first ``create``, then ``update``).
    :param owner: account role that owns the mech/service.
    :param fixture: file under ``fixtures/``.
    :param shape: what the manifest exercises.
    :param raw_leaves: add to kubo with raw leaves.
    :param deploy: for services: deploy it (Safe multisig) before its hash is set.
    """

    registry: str
    key: str
    owner: str
    fixture: str
    shape: str
    raw_leaves: bool = False
    deploy: bool = False


SEED_PLAN: Tuple[SeedStep, ...] = (
    # Olas AgentRegistry (through RegistriesManager); component 1 is created first.
    SeedStep(
        OLAS_AGENT_REGISTRY,
        "predict",
        "owner_1",
        "olas_tools_with_metadata.json",
        "tools+toolMetadata",
    ),
    SeedStep(
        OLAS_AGENT_REGISTRY,
        "tools-only",
        "owner_2",
        "olas_tools_only.json",
        "tools-names-only",
    ),
    SeedStep(
        OLAS_AGENT_REGISTRY,
        "broken",
        "owner_3",
        "olas_broken_invalid_json.txt",
        "broken:invalid-json",
    ),
    SeedStep(
        OLAS_AGENT_REGISTRY,
        "raw",
        "owner_1",
        "olas_raw_leaves.json",
        "tools+toolMetadata:raw-leaves",
        raw_leaves=True,
    ),
    SeedStep(
        OLAS_AGENT_REGISTRY,
        "predict",
        "owner_1",
        "olas_tools_with_metadata_v2.json",
        "tools+toolMetadata+input.schema",
    ),
    # legacy mech AI Agent Registry
    SeedStep(
        LEGACY_MECH_REGISTRY,
        "omen",
        "owner_1",
        "legacy_typed_kwargs.json",
        "typed-kwargs",
    ),
    SeedStep(
        LEGACY_MECH_REGISTRY,
        "short-maker",
        "owner_2",
        "legacy_description_json.json",
        "json-in-description",
    ),
    SeedStep(
        LEGACY_MECH_REGISTRY,
        "wrong-types",
        "owner_3",
        "legacy_broken_wrong_types.json",
        "broken:wrong-types",
    ),
    SeedStep(
        LEGACY_MECH_REGISTRY,
        "omen",
        "owner_1",
        "legacy_typed_kwargs_v2.json",
        "typed-kwargs",
    ),
    # registry NFT metadata whose top-level description holds the typed tools as JSON
    # (issue #12, storage way 1); registered last so the other legacy ids stay as they were
    SeedStep(
        LEGACY_MECH_REGISTRY,
        "long-maker",
        "owner_3",
        "legacy_nft_description_json.json",
        "nft-metadata+description-json",
    ),
    # ComplementaryServiceMetadata, keyed by ServiceRegistryL2 service id
    SeedStep(
        COMPLEMENTARY_SERVICE_METADATA,
        "market",
        "owner_1",
        "service_input_schema.json",
        "tools+toolMetadata+input.schema",
    ),
    SeedStep(
        COMPLEMENTARY_SERVICE_METADATA,
        "template",
        "owner_2",
        "service_template.json",
        "empty-template",
    ),
    SeedStep(
        COMPLEMENTARY_SERVICE_METADATA,
        "template",
        "owner_2",
        "olas_tools_with_metadata.json",
        "tools+toolMetadata",
    ),
    SeedStep(
        COMPLEMENTARY_SERVICE_METADATA,
        "deployed",
        "owner_3",
        "service_input_schema.json",
        "tools+toolMetadata+input.schema:set-by-safe",
        deploy=True,
    ),
)


def seed_devnet(devnet: "Devnet") -> None:
    """Run :data:`SEED_PLAN` on ``devnet`` and record every step in ``devnet.info.registered``.

    Then deploy the mech marketplace and seed it (:func:`scripts.devnet.marketplace.seed_marketplace`):
    one mech per ComplementaryServiceMetadata service, requests to the deployed one.

    :param devnet: a started, unseeded devnet.
    """
    deployer = devnet.address("deployer")
    # component 1's code_uri: a real tool package directory in kubo, whose tool
    # (prediction-request-rag) the names-only agent "tools-only" lists (issue #12)
    package_cid = devnet.ipfs.add_directory(TOOL_PACKAGE_DIR)
    component = json.loads((FIXTURES_DIR / "component.json").read_text())
    component["code_uri"] = f"ipfs://{package_cid}"
    component_digest = devnet.add_manifest(json.dumps(component).encode())[1]
    devnet.register_olas_component(deployer, component_digest)
    config_digest = devnet.add_manifest(
        (FIXTURES_DIR / "service_config.json").read_bytes()
    )[1]

    ids: Dict[Tuple[str, str], int] = {}
    for step in SEED_PLAN:
        owner = devnet.address(step.owner)
        cid, digest = devnet.add_manifest(
            (FIXTURES_DIR / step.fixture).read_bytes(), raw_leaves=step.raw_leaves
        )
        known = (step.registry, step.key) in ids
        if step.registry == OLAS_AGENT_REGISTRY:
            if known:
                devnet.update_olas_agent_hash(
                    owner, ids[(step.registry, step.key)], digest
                )
            else:
                ids[(step.registry, step.key)] = devnet.register_olas_agent(
                    owner, digest, [1]
                )
        elif step.registry == LEGACY_MECH_REGISTRY:
            if known:
                devnet.update_legacy_hash(owner, ids[(step.registry, step.key)], digest)
            else:
                ids[(step.registry, step.key)] = devnet.register_legacy_mech(
                    owner, digest
                )
        else:
            if not known:
                ids[(step.registry, step.key)] = devnet.register_service(
                    owner, config_digest, deploy=step.deploy
                )
            devnet.change_service_hash(ids[(step.registry, step.key)], digest)
        devnet.info.registered.append(
            RegisteredManifest(
                registry=step.registry,
                id=ids[(step.registry, step.key)],
                owner=owner,
                cid=cid,
                digest="0x" + digest.hex(),
                shape=step.shape,
                fixture=step.fixture,
                action="update" if known else "create",
                raw_leaves=step.raw_leaves,
            )
        )
    devnet.info.contracts.update(
        deploy_marketplace(
            devnet.w3,
            deployer,
            devnet.info.contracts["ServiceRegistryL2"],
            devnet.info.contracts["LegacyMechAgentRegistry"],
        )
    )
    seed_marketplace(
        devnet,
        {
            key: service_id
            for (registry, key), service_id in ids.items()
            if registry == COMPLEMENTARY_SERVICE_METADATA
        },
        {
            key: agent_id
            for (registry, key), agent_id in ids.items()
            if registry == LEGACY_MECH_REGISTRY
        },
    )
    devnet.info.save()
