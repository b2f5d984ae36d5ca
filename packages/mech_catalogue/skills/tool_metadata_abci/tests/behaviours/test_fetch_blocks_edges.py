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

"""FetchManifestsBehaviour.fetch_blocks when the gateway never answers a block request.

Driven step by step as the behaviour's loop drives it, with the skill's real context;
nothing answers the request (a gateway that hangs). The block request must ask a capped
range and give up after ``fetch_timeout_seconds``: the block is then reported missing,
instead of the period waiting for ever.
"""

from typing import Any, cast

from mech_catalogue_core.derive.code_uri import (
    CodeCaps,
)

from packages.mech_catalogue.skills.tool_metadata_abci.behaviours.fetch_manifests import (
    FetchManifestsBehaviour,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviour_case import (
    GATEWAY,
    ToolMetadataBehaviourCase,
)
from packages.mech_catalogue.skills.tool_metadata_abci.tests.behaviours.test_framework_calls import (
    run_to_end,
)
from packages.valory.protocols.http import HttpMessage

BLOCK = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"


class TestUnansweredBlock(ToolMetadataBehaviourCase):
    """A raw block asked of a gateway that does not answer."""

    def test_is_missing_after_the_fetch_timeout(self) -> None:
        """One raw GET with a capped Range; after the timeout (0 s here) the block is None."""
        self.skill.skill_context.params.__dict__["fetch_timeout_seconds"] = 0.0
        self.go_to(FetchManifestsBehaviour, {})
        behaviour = cast(FetchManifestsBehaviour, self.current())
        blocks: Any = run_to_end(behaviour.fetch_blocks([BLOCK]), 10)
        assert blocks == {BLOCK: None}
        request = self.outbox_message(HttpMessage)
        assert request.url == f"{GATEWAY}/ipfs/{BLOCK}?format=raw"
        assert request.headers == (
            "Accept: application/vnd.ipld.raw\r\n"
            f"Range: bytes=0-{CodeCaps().max_block_bytes}\r\n"
        )
