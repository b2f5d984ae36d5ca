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

"""From the chain to typed arguments derived from a component's code (issue #12 item 3).

Real components only: the Olas ComponentRegistry / AgentRegistry bytecode on anvil
(through RegistriesManager), Multicall2 for every read, kubo holding the tool package
directories and the component metadata. An agent's manifest lists tool names only; its
component's ``code_uri`` points to a real package directory. Faults (a code_uri that is a
file, a directory over the caps, a missing entry point, a module that does not parse)
are each reported for their own mech while the others go on.

Not covered here (see the report): the running agent's fetch behaviour does not drive
this path yet, so ``GET /tools`` of a live agent is not exercised.
"""

import json
from pathlib import Path
from textwrap import dedent
from typing import Any, Dict, List, Optional, Tuple

import requests
from click.testing import CliRunner
from mech_catalogue_core.adapters.directory import DirectoryStore
from mech_catalogue_core.chain.registry import (
    decode_batch,
    encode_batch,
)
from mech_catalogue_core.derive.from_chain import (
    DerivationCache,
    code_arguments_reader,
)
from mech_catalogue_core.derive.merge import (
    ComponentDerivation,
    merge_derived,
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
    Mech,
)
from mech_catalogue_core.model.tool import (
    REGISTRY_OLAS_AGENT,
    MechRef,
)

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK
from mech_catalogue_cli.app import cli

SOURCE = dedent("""
    from typing import Any
    from .fees import priced

    ALLOWED_TOOLS = ["estimate-gas"]

    def run(**kwargs: Any):
        key = kwargs["api_keys"]["rpc"]
        chain = kwargs.get("chain_id")
        if chain is None:
            return "chain_id is required", None, None, None
        return str(priced(key, margin=kwargs.get("margin", 1), **kwargs)), chain, None, None
    """)
FEES = dedent("""
    def priced(key, margin: float = 1.0, **kwargs) -> float:
        return margin * kwargs.get("gas_limit", 21000)
    """)
COMPONENT = (
    "name: gas_estimator\nauthor: tester\nversion: 0.1.0\ntype: custom\n"
    "description: Estimates gas.\nentry_point: gas_estimator.py\ncallable: run\n"
)


class _Io:
    """Runs the reader's requests against the devnet and counts them."""

    def __init__(self, devnet: Any) -> None:
        self.devnet = devnet
        self.multicall = devnet.info.contracts["Multicall2"]
        self.counts = {"chain": 0, "files": 0, "blocks": 0}

    def answer(self, kind: str, payload: Any) -> Any:
        """Run one request: a Multicall2 eth_call, or kubo cat / block get per CID."""
        self.counts[kind] += 1 if kind == "chain" else len(payload)
        if kind == "chain":
            calls, block = payload
            data = self.devnet.w3.eth.call(
                {"to": self.multicall, "data": encode_batch(calls)}, block
            )
            return decode_batch(bytes(data), len(calls))
        fetch = self.devnet.ipfs.cat if kind == "files" else self.devnet.ipfs.block
        return {cid: self._get(fetch, cid) for cid in payload}

    @staticmethod
    def _get(fetch: Any, cid: str) -> Optional[bytes]:
        try:
            return fetch(cid)
        except requests.HTTPError:
            return None

    def run(
        self, agent_ids: List[int], cache: DerivationCache
    ) -> Dict[int, List[ComponentDerivation]]:
        """Drive the reader to its result at the latest block."""
        gen = code_arguments_reader(
            self.devnet.info.contracts["AgentRegistry"],
            self.devnet.info.chain_id,
            agent_ids,
            self.devnet.w3.eth.block_number,
            cache,
        )
        try:
            request = next(gen)
            while True:
                request = gen.send(self.answer(*request))
        except StopIteration as done:
            return done.value


def _package(root: Path, name: str, files: Dict[str, Optional[str]]) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    contents: Dict[str, Optional[str]] = {
        "component.yaml": COMPONENT,
        "gas_estimator.py": SOURCE,
        "fees.py": FEES,
    }
    contents.update(files)
    for file_name, text in contents.items():
        if text is not None:
            (folder / file_name).write_text(text)
    return folder


def _component(devnet: Any, code_uri_cid: str, name: str) -> int:
    metadata = {
        "name": f"tester/{name}",
        "description": "a tool package",
        "code_uri": f"ipfs://{code_uri_cid}",
        "image": "",
        "attributes": [],
    }
    _, digest = devnet.add_manifest(json.dumps(metadata).encode())
    return devnet.register_olas_component(devnet.address("owner_1"), digest)


def _agent(devnet: Any, components: List[int], name: str) -> Tuple[int, bytes]:
    manifest = json.dumps(
        {"name": name, "description": "names only", "tools": ["estimate-gas"]}
    ).encode()
    _, digest = devnet.add_manifest(manifest)
    agent = devnet.register_olas_agent(
        devnet.address("owner_2"), digest, dependencies=sorted(components)
    )
    return agent, manifest


def _mech(
    devnet: Any, agent: int, manifest: bytes, found: List[ComponentDerivation]
) -> Mech:
    parsed = parse_manifest(manifest)
    assert parsed.manifest is not None
    ref = MechRef(
        devnet.info.chain_id,
        REGISTRY_OLAS_AGENT,
        devnet.info.contracts["AgentRegistry"].lower(),
        agent,
    )
    return merge_derived(
        Mech.from_manifest(ref, parsed.manifest, parsed.problems), found
    )


def test_names_only_agent_gets_arguments_derived_from_its_component(  # pylint: disable=too-many-locals
    chain_snapshot: Any, tmp_path: Path
) -> None:
    """Chain -> component metadata -> code_uri -> package -> typed, provenance-marked tools."""
    devnet = chain_snapshot
    good_cid = devnet.ipfs.add_directory(_package(tmp_path, "gas_estimator", {}))
    good = _component(devnet, good_cid, "gas_estimator")
    file_cid, _ = devnet.add_manifest(SOURCE.encode())
    faults = {
        "a file": _component(devnet, file_cid, "file"),
        "too many files": _component(
            devnet,
            devnet.ipfs.add_directory(
                _package(tmp_path, "big", {f"m{i}.py": "" for i in range(70)})
            ),
            "big",
        ),
        "no entry point": _component(
            devnet,
            devnet.ipfs.add_directory(
                _package(tmp_path, "no_entry", {"gas_estimator.py": None})
            ),
            "no_entry",
        ),
        "bad syntax": _component(
            devnet,
            devnet.ipfs.add_directory(
                _package(tmp_path, "bad", {"gas_estimator.py": "def run(**kw:\n"})
            ),
            "bad",
        ),
    }
    expected_codes = {
        "a file": P.CODE_NOT_A_DIRECTORY,
        "too many files": P.CODE_OVER_CAPS,
        "no entry point": P.ENTRY_POINT_NOT_FOUND,
        "bad syntax": P.SOURCE_SYNTAX_ERROR,
    }
    good_agent, good_manifest = _agent(devnet, [good], "Gas Mech")
    bad_agents = {k: _agent(devnet, [c], f"Broken {k}") for k, c in faults.items()}
    mixed_agent, mixed_manifest = _agent(devnet, [good, faults["bad syntax"]], "Mixed")

    io = _Io(devnet)
    cache = DerivationCache(DirectoryStore(str(tmp_path / "derivations")))
    agents = [good_agent, mixed_agent] + [a for a, _ in bad_agents.values()]
    found = io.run(agents, cache)

    mech = _mech(devnet, good_agent, good_manifest, found[good_agent])
    (tool,) = mech.tools
    args = {a.identifier: a for a in tool.arguments}
    assert set(args) == {"chain_id", "margin", "gas_limit"}
    assert (args["chain_id"].required, args["margin"].type) == (True, "float")
    assert args["gas_limit"].type == "int" and not args["gas_limit"].required
    assert (tool.provenance.derived_component, tool.provenance.derived_cid) == (
        good,
        good_cid,
    )
    meta = to_mcp_tool(tool)["_meta"][META_KEY]["provenance"]
    assert meta["arguments"] == "derived"
    assert meta["derived_from"] == {"component_id": good, "cid": good_cid}
    assert not mech.problems

    for key, (agent, manifest) in bad_agents.items():
        broken = _mech(devnet, agent, manifest, found[agent])
        assert not broken.tools[0].arguments, key
        codes = [p.code for p in broken.problems]
        assert expected_codes[key] in codes, (key, broken.problems)
        assert all(p.severity == P.SEVERITY_WARNING for p in broken.problems)
    mixed = _mech(devnet, mixed_agent, mixed_manifest, found[mixed_agent])
    assert mixed.tools[0].provenance.derived_component == good
    assert P.SOURCE_SYNTAX_ERROR in {p.code for p in mixed.problems}

    # the second period: the chain is read again, nothing is fetched from IPFS again
    first = dict(io.counts)
    assert first["blocks"] > 0 and first["files"] == 5  # five components' metadata
    again = io.run(agents, cache)
    assert (io.counts["blocks"], io.counts["files"]) == (first["blocks"], 5)
    assert again[good_agent] == found[good_agent]
    # after a restart the on-disk cache answers too
    restarted = _Io(devnet)
    restarted.run(
        [good_agent], DerivationCache(DirectoryStore(str(tmp_path / "derivations")))
    )
    assert (restarted.counts["blocks"], restarted.counts["files"]) == (0, 0)


def test_cli_derive_takes_a_cid_or_ipfs_uri(devnet: Any, tmp_path: Path) -> None:
    """``mech-catalogue derive ipfs://<CID>`` reads the package through the gateway; a file CID fails clearly."""
    cid = devnet.ipfs.add_directory(_package(tmp_path, "gas_estimator", {}))
    gateway = devnet.info.ipfs_gateway_url
    for source in (f"ipfs://{cid}", cid):
        result = CliRunner().invoke(
            cli, ["derive", "--json", source, "--ipfs-gateway", gateway]
        )
        assert result.exit_code == EXIT_OK, result.output
        (package,) = json.loads(result.output)
        assert package["tool_names"] == ["estimate-gas"]
        assert {a["identifier"] for a in package["arguments"] if not a["runtime"]} == {
            "chain_id",
            "margin",
            "gas_limit",
        }
    file_cid, _ = devnet.add_manifest(SOURCE.encode())
    result = CliRunner().invoke(
        cli, ["derive", "--json", f"ipfs://{file_cid}", "--ipfs-gateway", gateway]
    )
    assert result.exit_code == EXIT_INVALID
    assert P.CODE_NOT_A_DIRECTORY in result.output and file_cid in result.output
