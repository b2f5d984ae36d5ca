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

"""mech-client 0.24.1's ``mechx tool schema`` shows the arguments of a manifest we publish (issue #34 item 9).

mech-client from PyPI runs in a venv of its own (``~/.cache/mech-catalogue``, made on
first use); a manifest ``generate`` writes from a tool package written here is added to
the devnet's kubo and set with a real ``changeHash`` on ComplementaryServiceMetadata
(real bytecode); ``mechx`` reads ``tokenURI`` on anvil and fetches the manifest from
kubo (``mechx_shim.py`` says the two things it points at the devnet). The same manifest
without ``input.schema`` (what ``generate`` wrote before) shows none of the arguments.
"""

import copy
import json
import os
import subprocess  # nosec - fixed argument lists, no shell
import sys
from pathlib import Path
from typing import Any, Dict

import pytest
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive.generate import generate_manifest
from mech_catalogue_core.model.canonical import canonical_bytes

MECH_CLIENT = "mech-client==0.24.1"
VENV = Path.home() / ".cache" / "mech-catalogue" / "mech-client-0.24.1"
SHIM = Path(__file__).with_name("mechx_shim.py")
SOURCE = '''
ALLOWED_TOOLS = ["harbour-tide"]


def run(**kwargs):
    """Tide times.

    :param harbour: the harbour's name.
    :param days_ahead: days after today.
    """
    harbour = kwargs.get("harbour")
    if harbour is None:
        return "Error: no harbour.", None, None, None
    days_ahead = int(kwargs.get("days_ahead", 1))
    return f"{harbour} {days_ahead}", None, None, None
'''


@pytest.fixture(name="mechx_python", scope="module")
def _mechx_python() -> Path:
    """mech-client from PyPI in its own venv (made once, then reused)."""
    python = VENV / "bin" / "python"
    if not (VENV / "bin" / "mechx").exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", MECH_CLIENT],
            check=True,
            timeout=1200,
        )
    return python


def _generated(tmp_path: Path) -> Dict[str, Any]:
    (tmp_path / "component.yaml").write_text(
        "name: tides\nauthor: test\nversion: 0.1.0\ntype: custom\n"
        "description: tides\nentry_point: tides.py\ncallable: run\n"
    )
    (tmp_path / "tides.py").write_text(SOURCE)
    document, _ = generate_manifest(
        [derive_package(tmp_path)], {"name": "Tides", "description": "Tide times."}
    )
    return document


def _mechx_schema(devnet: Any, python: Path, document: Dict[str, Any]) -> str:
    _, digest = devnet.add_manifest(canonical_bytes(document))
    owner = devnet.address("owner_1")
    service_id = devnet.register_service(owner)
    devnet.change_service_hash(service_id, digest, sender=owner)
    address = devnet.contract("ComplementaryServiceMetadata").address
    env = {**os.environ, "MECHX_CHAIN_RPC": devnet.info.rpc_url}
    result = subprocess.run(
        [
            str(python),
            str(SHIM),
            address,
            devnet.info.ipfs_gateway_url,
            f"{service_id}-harbour-tide",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.split("Input Schema:")[1].split("Output Schema:")[0]


def test_mechx_tool_schema_shows_the_arguments_we_publish(
    chain_snapshot: Any, mechx_python: Path, tmp_path: Path
) -> None:
    """Each argument, its type and the required list appear in mechx's input schema."""
    document = _generated(tmp_path)
    shown = _mechx_schema(chain_snapshot, mechx_python, document)
    for text in ("'harbour'", "'days_ahead'", "'integer'", "'required': ['harbour']"):
        assert text in shown, shown
    assert "the harbour's name." in shown


def test_without_input_schema_mechx_shows_no_argument(
    chain_snapshot: Any, mechx_python: Path, tmp_path: Path
) -> None:
    """The control: what generate wrote before (arguments only) shows none of them."""
    document = copy.deepcopy(_generated(tmp_path))
    document["toolMetadata"]["harbour-tide"]["input"].pop("schema")
    shown = _mechx_schema(chain_snapshot, mechx_python, document)
    assert "harbour" not in shown and "days_ahead" not in shown
    assert json.dumps(document)  # still a manifest our readers read (arguments)
