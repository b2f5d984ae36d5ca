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

"""pytest plugin for ``make mutation``: mutmut 3.7.0 on pytest 9.

mutmut 3.7.0 records which test reached which function from ``item._nodeid``, an attribute
pytest 9 no longer has (mutmut 3.8 reads ``nodeid`` but requires click >= 8.4, which
requirements.txt pins lower). Loaded with ``-p scripts.mutmut_pytest9`` from setup.cfg's
``[mutmut]`` section only; it gives pytest's nodes ``_nodeid`` as an alias of ``nodeid``.
"""

from _pytest.nodes import Node

if not hasattr(Node, "_nodeid"):
    Node._nodeid = property(  # type: ignore[attr-defined]  # pylint: disable=protected-access
        lambda node: node.nodeid
    )
