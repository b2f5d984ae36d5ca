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

"""adv29zt2: a ground tag collision takes an honest tool's MCP name at every fresh start.

Severity: MEDIUM (issue #29 (a): a call by the name an honest tool was served under pays
a stranger's mech tool after any restart of the server, or in any new user's server).

A mech tool name MCP does not accept as written (over 64 characters, or holding a
character outside ``[a-zA-Z0-9_-]``) is served as its first 55 characters, cleaned, plus
``_`` and 8 hex digits of its SHA-256 (``exporters.names._tagged``). Those 8 digits are
32 bits: a stranger copies the honest tool's first 55 characters and grinds the rest of
its own tool's name until the tags match (2^32 SHA-256 of 70 bytes: about 10 minutes at
the 6.8 M/s one idle core of this machine hashed in C with OpenSSL, under a second on a
GPU). Both tools then have
the same first tag; ``export_names`` gives it to whichever name sorts first
(``Catalogue.tool_names`` is sorted), the other gets its second tag. adv29v and adv29yp
made a served name keep its tool while the server runs, and gave a first tag back from a
junior *literal* holder (``ServedNames._return_first_tags``), but names are not kept
across restarts and a junior *tagged* holder is not looked at: a fresh process names the
two by sort order alone, whatever their seniority.

The devnet twin (``test_adv29zt2_ground_tag_takes_name_devnet.py``) pays the stranger's
mech by the honest tool's name after a restart.

Observed on main 4594d36e (no chain: ``served_from_catalogue`` with tenures, a fresh
``ServedNames`` as each server process has): the honest tool (tenure: declared at block
50, first delivery 60), read alone, is served under its first tag T; the stranger's
(declared 390, never delivered), registered later with a name ground to the same tag and
sorting first, leaves T with the honest tool in the running server (held: adv29v); in a
fresh process with both read, T stands for the stranger's mech tool and the honest tool
is renamed to its second tag; both are listed (no look-alike warning, ``collision``
false), T with the stranger's mech as its one offer. A client, a configured agent or a
model that plans with T pays the stranger's offers, under the honest tool's description
and schema (copied).

Fixed (fix29zzg): tags are 16 hex digits (64 bits), and a tag shared by two tools
goes to the senior one in a fresh process as in a running one (tested below with
8-digit tags, where this pair collides).

Expected: a tag shared by two tools goes to the senior one (as ``_return_first_tags``
does for a literal holder), or served names persist in the state folder, or the tag is
long enough that grinding it is out of reach (e.g. 64 bits or more).

The pair below is a birthday collision (both names chosen here: 2^16 tries); the
attack needs a second preimage of the honest name's tag (2^32 tries), which changes
nothing in the code path.
"""

import hashlib

import pytest
from mech_catalogue_core.exporters import names as names_module
from mech_catalogue_core.exporters.names import MCP_TOOL_RULE, sanitise_name

from mech_catalogue_cli.mcp_server.served_names import ServedNames
from mech_catalogue_cli.mcp_server.source import served_from_catalogue
from mech_catalogue_cli.mcp_server.tenure import Tenure
from tests.test_contract_guards import manifest
from tests.test_mcp_source import _facts, _priced_catalogue, _typed

PREFIX = "prediction-online-sentiment-analysis-with-news-sources-"
#: the honest tool's name (69 characters: served tagged)
HONEST = PREFIX + "x000000041500"
#: the stranger's, its tail ground so its first tag is the honest one's; it sorts first
STRANGER = PREFIX + "x000000029839"
#: the honest tool's first tag: its MCP name when read alone
NAME = sanitise_name(HONEST, MCP_TOOL_RULE)


def _served(both: bool):  # type: ignore[no-untyped-def]
    """The served catalogue with the honest mech (1), and the stranger's (2) when ``both``."""
    manifests = {1: manifest(_typed(HONEST, "question"))}
    if both:
        manifests[2] = manifest(_typed(STRANGER, "question"))
    tenures = {
        (_facts(1).address, HONEST): Tenure(50, 60),
        (_facts(2).address, STRANGER): Tenure(390, None),
    }
    return served_from_catalogue(_priced_catalogue(manifests), tenures)


def test_the_names_share_their_first_tag() -> None:
    """The premise: one 8-digit tag, the stranger's name sorting first; 16 digits differ."""
    assert hashlib.sha256(HONEST.encode()).hexdigest()[:8] == (
        hashlib.sha256(STRANGER.encode()).hexdigest()[:8]
    )
    assert STRANGER < HONEST
    assert sanitise_name(STRANGER, MCP_TOOL_RULE) != NAME  # the fix: 64-bit tags
    assert len(NAME) == 64 and MCP_TOOL_RULE.accepts(NAME)


def test_the_running_server_keeps_the_name_with_the_honest_tool() -> None:
    """Held (adv29v): read alone, then beside the stranger's, the name stays the honest's."""
    names = ServedNames()
    alone = names.assign(_served(both=False)).named(NAME)
    assert alone is not None and alone.mech_tool == HONEST
    later = names.assign(_served(both=True)).named(NAME)
    assert later is not None and later.mech_tool == HONEST


@pytest.mark.parametrize("digits", [16, 8])
def test_a_fresh_process_gives_the_name_to_the_senior_tool(
    digits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart: both read at once, the name still stands for the honest tool.

    With 8-digit tags (as before the fix: the two names' tags collide) the senior tool
    is given the tag all the same.

    :param digits: the tag's hex digits.
    :param monkeypatch: sets them.
    """
    monkeypatch.setattr(names_module, "TAG_HEX_DIGITS", digits)
    name = sanitise_name(HONEST, MCP_TOOL_RULE)
    served = ServedNames().assign(_served(both=True))
    tool = served.named(name)
    assert tool is not None and tool.mech_tool == HONEST, (
        f"{name} stands for {tool.mech_tool if tool else None!r}; the honest tool is "
        f"{[t.name for t in served.tools if t.mech_tool == HONEST]}"
    )
    assert len({t.name for t in served.tools}) == 2
