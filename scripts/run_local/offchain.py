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

"""`make run`'s off-chain mech: the stand-in endpoint of one seeded mech, declared.

The seeded devnet's deployed service declares the agent's own address as its manifest's
``url`` (the real mech ships its off-chain route disabled, and so does the seed). For a
user of ``make run`` to try ``mech-catalogue mcp --devnet --offchain auto``, the run
serves the devnet stand-in of a mech's off-chain routes
(``scripts/devnet/offchain_responder.py``) for that service's native mech and sets the
service's manifest ``url`` to it, before the agents read the registries: the catalogue
then lists that service's offers with an ``offchain_endpoint``. The stand-in settles
accepted requests from the mech's Safe. Its token mechs share the manifest, hence the
``url``, but the stand-in answers only the native one (the devnet's token tracker does
not charge prepaid balances for signed deliveries).
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from mech_catalogue_cli.devnet.state import DevnetInfo
from scripts.devnet import Devnet
from scripts.devnet.offchain_responder import OffchainResponder, declare_endpoint
from scripts.devnet.processes import listen_port


def offchain_mech(info: DevnetInfo) -> Tuple[str, int]:
    """The deployed service's native marketplace mech, and that service's id (pure).

    :param info: the seeded devnet's state.
    :return: ``(mech address, service id)``.
    :raises ValueError: when the devnet has no such mech (not seeded).
    """
    deployed = {int(m["service_id"]) for m in info.mechs if m.get("asset") == "olas"}
    for mech in info.mechs:
        if (
            mech.get("kind") == "marketplace"
            and mech.get("asset", "native") == "native"
            and int(mech.get("service_id", -1)) in deployed
        ):
            return str(mech["address"]), int(mech["service_id"])
    raise ValueError("the devnet has no deployed native mech (is it seeded?)")


@dataclass
class OffchainStandIn:
    """The running stand-in endpoint of :func:`offchain_mech`.

    :param mech: the mech it answers for.
    :param url: the endpoint, as declared in the service's manifest.
    :param endpoint: the stand-in (None once stopped).
    """

    mech: str
    url: str
    endpoint: Optional[OffchainResponder]

    def stop(self) -> None:
        """Stop serving (its settlement threads finish first)."""
        if self.endpoint is not None:
            self.endpoint.stop()
            self.endpoint = None

    def try_arguments(self) -> str:
        """The CLI arguments a user runs to call it off-chain (one line).

        :return: ``mcp --devnet ...``: shown with :func:`.view.cli_command`.
        """
        return (
            "mcp --devnet --offchain auto --auto-prepay native=5e16 "
            f"--max-spend native=1e17 --mech {self.mech}"
        )


def serve_offchain(devnet: Devnet) -> OffchainStandIn:
    """Serve the stand-in endpoint of the deployed native mech and declare it.

    :param devnet: the seeded, running devnet.
    :return: the running stand-in; ``ValueError`` when the devnet has no such mech.
    :raises BaseException: what declaring the endpoint raised, once it is stopped.
    """
    mech, service_id = offchain_mech(devnet.info)
    endpoint = OffchainResponder(devnet.info, [mech], port=listen_port()).start()
    try:
        declare_endpoint(devnet, service_id, endpoint.url)
    except BaseException:
        endpoint.stop()
        raise
    return OffchainStandIn(mech, endpoint.url, endpoint)
