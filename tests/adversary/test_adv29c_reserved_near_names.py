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

"""Names a model takes for the server's own discovery tools are not reserved (adv29c).

``exporters.names.is_reserved`` folds case and look-alike characters (``caII_tool``,
``Call-Tool``, Cyrillic ``о``, full-width forms: all refused, checked here too), but a
name one separator or one ``s`` away passes: a mech can list ``search_tool`` (described
"search the catalogue's tools, free") beside, or in place of, the server's
``search_tools``, and a model reading the list cannot tell which is the server's.

Expected: a name equal to a reserved one once separators are removed and a trailing
``s`` dropped is refused too (``reserved_tool_name``).
"""

import pytest
from mech_catalogue_core.exporters.names import is_reserved

#: refused now: the fold works for these
FOLDED = ["CALL_TOOL", "calI_tool", "call-tool", "call_t00l", "call_t\u043e\u043el"]
#: accepted now: a separator or a plural away
NEAR = [
    "search_tool",
    "describe_tools",
    "call_tools",
    "calltool",
    "call__tool",
    "searchtools",
    "_describe_tool",
    "call_tool_",
]


@pytest.mark.parametrize("name", FOLDED)
def test_folded_look_alikes_are_reserved(name: str) -> None:
    """What the fold already covers (a baseline that passes now).

    :param name: a look-alike of a reserved name.
    """
    assert is_reserved(name)


@pytest.mark.parametrize("name", NEAR)
def test_a_name_a_separator_or_a_plural_away_is_reserved(name: str) -> None:
    """Observed now: each is accepted as a mech tool's MCP name.

    :param name: a near name of a reserved one.
    """
    assert is_reserved(name)
