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

"""``mech-catalogue``: the command-line interface over the ``mech_catalogue_core`` library.

Installed by ``make setup`` (``pip install -e .``, pyproject.toml) as the ``mech-catalogue``
console script, or from its wheel (``make dist``; ``pip install``, ``pipx``, ``uvx``) outside
any checkout; ``python -m mech_catalogue_cli`` is the same. Where its state goes by default
in each case: :mod:`mech_catalogue_cli.folders`. Commands: ``validate``,
``show``, ``derive``, ``generate``, ``export``, ``cid``, ``list``, ``publish``; each takes
``--json`` for machine-readable output. Exit codes: :data:`EXIT_OK` (0) success,
:data:`EXIT_INVALID` (1) invalid input or manifest (including an unreachable IPFS node or
chain, a digest mismatch, a refused publish), :data:`EXIT_USAGE` (2) bad command line
(click's usage errors). See docs/cli.md.

The domain library is the ``mech-catalogue-core`` distribution (``libs/mech-catalogue-core``,
imported as ``mech_catalogue_core``), which the skills depend on too (docs/ARCHITECTURE.md).
"""

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
