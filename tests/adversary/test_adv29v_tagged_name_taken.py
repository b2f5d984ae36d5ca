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

"""A stranger registers an honest tool's served MCP name and takes it over (adv29v).

Severity: LOW-MEDIUM (redirects a payment, for honest tool names that MCP does not
accept as they are: a space, a colon, a slash, non-ASCII letters, over 128 characters).

An MCP name is the mech tool's own name when valid (``A-Za-z0-9_.-``, 1-128), else its
sanitised form with a hash tag (``exporters.names.export_names``: ``prediction online``
is served as ``prediction_online_71343d6f``). Valid names are taken first, and a
tagged name that collides takes the next tag. So a stranger who registers, later, a
tool literally named ``prediction_online_71343d6f`` (the honest tool's arguments
copied) takes that MCP name at the next catalogue read: the honest tool moves to
``prediction_online_c328876c``, and ``prediction_online_71343d6f``, the name clients
listed, a model planned with and an agent's configuration holds, now stands for the
stranger's tool; ``MechToolServer.call`` resolves the name afresh
(``ServedCatalogue.named``) and pays the stranger's offers. The description can copy the
honest one's words, "(mech tool name: prediction online)" included, so a ``--pin``
file keyed by MCP name sees the same definition.

Observed on main f50e9323 (no chain: ``served_from_catalogue`` of the catalogue before
and after the stranger's registration, as the server's source builds it): the served
name ``prediction_online_71343d6f`` stands for the honest ``prediction online``
before, for the stranger's tool after, with the stranger's mech as its only offer.

Expected: a name served for one tool keeps standing for it while that tool is served
(the newcomer's colliding name is the one tagged), or a call naming it pays nobody
until the client lists again.
"""

from mech_catalogue_core.exporters.names import MCP_TOOL_RULE, sanitise_name

from mech_catalogue_cli.mcp_server.source import served_from_catalogue
from tests.test_contract_guards import manifest, ref
from tests.test_mcp_source import _priced_catalogue, _typed

HONEST = "prediction online"


def test_a_later_registration_does_not_take_a_served_tagged_name() -> None:
    """Mech 1 serves ``prediction online``; mech 2 registers its tagged MCP name."""
    served_name = sanitise_name(HONEST, MCP_TOOL_RULE)
    honest = manifest(_typed(HONEST, "question"))
    before = served_from_catalogue(_priced_catalogue({1: honest}))
    tool = before.named(served_name)
    assert tool is not None and tool.mech_tool == HONEST

    stranger = manifest(_typed(served_name, "question"))
    after = served_from_catalogue(_priced_catalogue({1: honest, 2: stranger}))
    now = after.named(served_name)
    assert now is not None
    # observed on main: the stranger's tool, offered by mech 2 alone
    assert (now.mech_tool, [o.mech_key for o in now.offers]) == (
        HONEST,
        [ref(1).key],
    )
