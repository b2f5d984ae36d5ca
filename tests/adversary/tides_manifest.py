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

"""A one-tool manifest (``tide-table``) whose argument and output schemas a test chooses.

Shared by the adv29o reproductions, which each put hostile text in one place of it.
"""

from typing import Any, Dict, Optional

TIDES = "tide-table"


def tides_manifest(
    prompt: Dict[str, Any], output: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """The manifest (spec v1 shape): tool TIDES, one required argument ``prompt``.

    :param prompt: the ``prompt`` argument's schema.
    :param output: the output's ``schema`` (None: the output has none).
    :return: the manifest, ready for ``json.dumps``.
    """
    returned: Dict[str, Any] = {"type": "object", "description": "the tides"}
    if output is not None:
        returned["schema"] = output
    return {
        "name": "Tides",
        "description": "Tide tables for ports.",
        "tools": [TIDES],
        "toolMetadata": {
            TIDES: {
                "name": TIDES,
                "description": "High and low tides for a port.",
                "input": {
                    "type": "text",
                    "description": "a port",
                    "schema": {
                        "type": "object",
                        "properties": {"prompt": prompt},
                        "required": ["prompt"],
                    },
                },
                "output": returned,
            }
        },
    }
