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

"""adv29zt Z5: a combining mark that draws nothing new makes a look-alike name unwarned.

Severity: LOW-MEDIUM (two tools shown with one name where people choose tools: the
catalogue page's search results and tool view, ``list``/``search`` tables, ``GET
/tools``; no ``lookalike_tool_name`` warning, so the MCP server adds no "Warning from
this server" note either, while the model reads two different names).

``catalogue.lookalikes.skeleton`` (NFKC, format characters out, UTS #39 prototypes)
keeps combining marks, and the confusables table maps none of these: ``ti`` + U+0307
(a dot above a letter that already has one, "soft dotted"), the same with two dots, and
``tide`` + U+0335 ``s`` (a short stroke overlay drawn on the bar of the ``e``). In
chromium at 40 px (system-ui, as the page) each is drawn as ``tides`` (screenshots
compared by eye; the pixels differ by antialiasing only). A Cyrillic ``і`` in the same
place is warned (the control). UTS #39 section 5.4 names both checks the skeleton
lacks: a soft-dotted letter followed by U+0307, and combining marks a name does not
need.

Observed on main: ``lookalike_problems(["tides", name])`` is ``{}`` for the three;
``export_names`` gives ``tides`` and ``ti_des_f3b3d351`` (so only an MCP client showing
the exported name tells them apart).

Expected: each is warned as a look-alike of ``tides`` (marks a letter already shows, or
overlays, dropped from the skeleton; or names with a mark on a Latin letter that NFC
does not compose read as their base letters).
"""

import pytest
from mech_catalogue_core.catalogue.lookalikes import lookalike_problems

REASON = (
    "adv29zt: a combining mark that draws nothing new escapes the look-alike warning"
)
HONEST = "tides"
#: drawn as ``tides`` in chromium
LOOKALIKES = ("ti\u0307des", "ti\u0307\u0307des", "tide\u0335s")


def test_control_a_cyrillic_i_is_warned() -> None:
    """The control: the confusables table catches a Cyrillic ``і``."""
    assert lookalike_problems([HONEST, "t\u0456des"])


@pytest.mark.parametrize("name", LOOKALIKES, ids=["dot-on-i", "two-dots", "stroke-e"])
def test_a_name_drawn_as_another_is_warned(name: str) -> None:
    """Each name draws as ``tides``; no warning."""
    # observed on main: {}
    assert lookalike_problems([HONEST, name])
