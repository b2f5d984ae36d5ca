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

"""adv29yp N1: a tagged name is the stranger's for a whole process if its tool misses one read.

Severity: LOW-MEDIUM (redirects payments by name, for honest tool names MCP does not
accept as they are, when the honest manifest is not in a process's first read: a
gateway failure, a fetch budget spent before it (``test_adv29yp_tenure_old_dead_hashes``
spends the tenure walk's the same way), a first run with no readable record).

adv29v's fix gives an honest ``prediction online`` its tagged MCP name
``prediction_online_71343d6f`` even when a stranger registers a tool literally named so
(the exporter reserves a name's first tag: the literal one is tagged instead). fix29vb's
``ServedNames`` then keeps every served name standing for its mech tool for the life of
the process, and names are never persisted. So when the honest tool is absent from a
fresh process's first read, the stranger's literal tool is served under
``prediction_online_71343d6f``, and when the honest tool is read a period later it is
renamed ``prediction_online_c328876c``: for the rest of the process (days, for an HTTP
server), a client, a configured agent or a model that plans with the name the honest
tool was served under yesterday pays the stranger's mechs. Before fix29vb the next
read gave the name back (the exporter's rule alone).

Observed on main c8221b19 (no chain: ``served_from_catalogue`` and a fresh
``ServedNames`` as the server's source uses them): first read without the honest
mech: the name stands for the stranger's tool; second read with both: it still does,
the honest tool is ``prediction_online_c328876c``. With both in the first read the
honest tool has the name (control).

Expected: a fresh process names the honest tool as the exporter's rule does once it is
read (e.g. a literal name that is another present tool's first tag yields it, said in
``notifications/tools/list_changed``), or served names persist in the state folder
with the readable manifests, so one read's absence cannot move a name.
"""

from mech_catalogue_core.exporters.names import MCP_TOOL_RULE, sanitise_name

from mech_catalogue_cli.mcp_server.served_names import ServedNames
from mech_catalogue_cli.mcp_server.source import served_from_catalogue
from tests.test_contract_guards import manifest
from tests.test_mcp_source import _priced_catalogue, _typed

HONEST = "prediction online"
NAME = sanitise_name(HONEST, MCP_TOOL_RULE)  # prediction_online_71343d6f


def _catalogues():  # type: ignore[no-untyped-def]
    honest = manifest(_typed(HONEST, "question"))
    literal = manifest(_typed(NAME, "question"))  # the stranger's copy, literally named
    return (
        served_from_catalogue(_priced_catalogue({2: literal})),
        served_from_catalogue(_priced_catalogue({1: honest, 2: literal})),
    )


def test_one_read_without_the_honest_tool_does_not_give_its_name_away() -> None:
    """First read without the honest mech, second with it: the name is the honest tool's."""
    first_read, second_read = _catalogues()
    names = ServedNames()  # a fresh process
    names.assign(first_read)
    later = names.assign(second_read).named(NAME)
    assert later is not None and later.mech_tool == HONEST, (
        f"{NAME} stands for {later.mech_tool if later else None!r}; the honest tool is "
        f"{[t.name for t in names.assign(second_read).tools if t.mech_tool == HONEST]}"
    )


def test_control_both_in_the_first_read_the_honest_tool_keeps_its_name() -> None:
    """Control: both read at once, the exporter's rule gives the name to the honest tool."""
    _, both = _catalogues()
    tool = ServedNames().assign(both).named(NAME)
    assert tool is not None and tool.mech_tool == HONEST
