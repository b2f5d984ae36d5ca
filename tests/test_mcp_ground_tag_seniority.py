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

"""Two tools whose first tags collide: the senior one is given the tag (adv29zt2).

Tags are 64 bits, so no collision is found by hand: the tag width is set back to 8 hex
digits here, where the two names of ``test_adv29zt2_ground_tag_takes_name`` collide.
Seniority both ways: whichever tool is
senior keeps the tag, in a fresh process and in a running one whatever was read first.
"""

import hashlib
import logging
from typing import Dict, Tuple

import pytest
from mech_catalogue_core.exporters import names as names_module
from mech_catalogue_core.exporters.names import MCP_TOOL_RULE, sanitise_name

from mech_catalogue_cli.mcp_server.served_names import ServedNames
from mech_catalogue_cli.mcp_server.source import ServedCatalogue, served_from_catalogue
from mech_catalogue_cli.mcp_server.tenure import Tenure
from tests.adversary.test_adv29zt2_ground_tag_takes_name import HONEST, STRANGER
from tests.test_contract_guards import manifest
from tests.test_mcp_source import _facts, _priced_catalogue, _typed

SENIOR, JUNIOR = Tenure(50, 60), Tenure(390, None)


@pytest.fixture(autouse=True)
def eight_digit_tags(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tags of 8 hex digits: HONEST and STRANGER collide.

    :param monkeypatch: pytest's monkeypatch.
    """
    monkeypatch.setattr(names_module, "TAG_HEX_DIGITS", 8)


def _served(
    tenures: Dict[str, Tenure], read: Tuple[str, ...] = (HONEST, STRANGER)
) -> ServedCatalogue:
    """The tools named in ``read`` (mech 1 offers HONEST, mech 2 STRANGER), tenured."""
    mech_of = {HONEST: 1, STRANGER: 2}
    manifests = {mech_of[t]: manifest(_typed(t, "question")) for t in read}
    by_address = {
        (_facts(mech_of[t]).address, t): tenure for t, tenure in tenures.items()
    }
    return served_from_catalogue(_priced_catalogue(manifests), by_address)


TAG = "prediction-online-sentiment-analysis-with-news-sources-_44f6b137"


def test_the_two_names_collide_at_eight_digits() -> None:
    """The premise of every test here."""
    assert sanitise_name(HONEST, MCP_TOOL_RULE) == TAG
    assert sanitise_name(STRANGER, MCP_TOOL_RULE) == TAG


@pytest.mark.parametrize("senior", [HONEST, STRANGER])
def test_a_fresh_process_gives_the_tag_to_the_senior_tool(senior: str) -> None:
    """Whichever is senior, whichever sorts first (STRANGER does)."""
    junior = STRANGER if senior == HONEST else HONEST
    served = ServedNames().assign(_served({senior: SENIOR, junior: JUNIOR}))
    tool = served.named(TAG)
    assert tool is not None and tool.mech_tool == senior
    other = [t for t in served.tools if t.mech_tool == junior]
    assert len(other) == 1 and other[0].name not in (TAG, junior)
    assert MCP_TOOL_RULE.accepts(other[0].name) and len(other[0].name) <= 64


@pytest.mark.parametrize("senior", [HONEST, STRANGER])
def test_a_running_server_gives_the_tag_back_from_a_junior_holder(
    senior: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The junior read alone first holds the tag; the senior read later takes it back."""
    junior = STRANGER if senior == HONEST else HONEST
    tenures = {senior: SENIOR, junior: JUNIOR}
    names = ServedNames()
    alone = names.assign(_served(tenures, read=(junior,))).named(TAG)
    assert alone is not None and alone.mech_tool == junior
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        both = names.assign(_served(tenures))
    tool = both.named(TAG)
    assert tool is not None and tool.mech_tool == senior
    assert any("goes to mech tool" in r.getMessage() for r in caplog.records)
    assert any("stands for mech tool" in r.getMessage() for r in caplog.records)
    again = names.assign(_served(tenures)).named(TAG)  # stable at the next read
    assert again is not None and again.mech_tool == senior


@pytest.mark.parametrize("senior", [HONEST, STRANGER])
def test_a_running_server_keeps_the_tag_with_a_senior_holder(senior: str) -> None:
    """The senior read first keeps it when the junior arrives."""
    junior = STRANGER if senior == HONEST else HONEST
    tenures = {senior: SENIOR, junior: JUNIOR}
    names = ServedNames()
    names.assign(_served(tenures, read=(senior,)))
    tool = names.assign(_served(tenures)).named(TAG)
    assert tool is not None and tool.mech_tool == senior


def test_equal_seniority_keeps_the_holder() -> None:
    """No tool is more senior: the tag does not move from the tool served under it."""
    tenures = {HONEST: SENIOR, STRANGER: SENIOR}
    names = ServedNames()
    names.assign(_served(tenures, read=(HONEST,)))
    for _ in range(2):
        tool = names.assign(_served(tenures)).named(TAG)
        assert tool is not None and tool.mech_tool == HONEST


def test_sixty_four_bit_tags_keep_the_names_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At the real width the two names are two tags: both listed as their own."""
    monkeypatch.setattr(names_module, "TAG_HEX_DIGITS", 16)
    served = ServedNames().assign(_served({HONEST: SENIOR, STRANGER: JUNIOR}))
    for name in (HONEST, STRANGER):
        tag = sanitise_name(name, MCP_TOOL_RULE)
        assert (
            len(tag) == 64
            and tag[-16:] == hashlib.sha256(name.encode()).hexdigest()[:16]
        )
        tool = served.named(tag)
        assert tool is not None and tool.mech_tool == name
