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

"""``mech-catalogue``: the command-line interface over the skill's domain code.

Installed by ``make setup`` (``pip install -e .``, pyproject.toml) as the ``mech-catalogue``
console script; ``python -m mech_catalogue_cli`` is the same. Commands: ``validate``,
``show``, ``derive``, ``generate``, ``export``, ``cid``, ``list``, ``publish``; each takes
``--json`` for machine-readable output. Exit codes: :data:`EXIT_OK` (0) success,
:data:`EXIT_INVALID` (1) invalid input or manifest (including an unreachable IPFS node or
chain, a digest mismatch, a refused publish), :data:`EXIT_USAGE` (2) bad command line
(click's usage errors). See docs/cli.md.

The domain library lives in the skill (``packages/mech_catalogue/skills/
tool_metadata_abci/domain``: an AEA skill must be self-contained). The CLI imports it from
the checkout it is installed from; :func:`share_domain` makes that work from any folder
(docs/ARCHITECTURE.md, "How the CLI and the skill share the domain").
"""

import importlib.util
import sys
from pathlib import Path

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2

#: the checkout this package is installed from (an editable install: the package stays here)
REPO_ROOT = Path(__file__).resolve().parent.parent
#: the AEA packages folder of that checkout (the skill, and the synced third-party packages)
PACKAGES_DIR = REPO_ROOT / "packages"
DOMAIN_PACKAGE = "packages.mech_catalogue.skills.tool_metadata_abci.domain"


class DomainNotFound(ImportError):
    """The skill's domain library is not where an editable install of the CLI expects it."""


def share_domain() -> None:
    """Make ``packages.mech_catalogue`` (the skill, hence its domain) importable.

    With the repository root first on ``sys.path`` (``make`` exports PYTHONPATH; pytest's
    rootdir) nothing is needed. Otherwise ``import packages`` finds the ``packages`` that
    the open-autonomy wheel installs in site-packages (a regular package holding only
    ``packages/valory``), and the checkout's ``packages/`` folder is put first on that
    package's search path, as PYTHONPATH would. Nothing is copied.

    :raises DomainNotFound: when the checkout has no ``packages/mech_catalogue`` (the CLI
        was installed without ``-e``, or the checkout moved), saying what to run.
    """
    if not (PACKAGES_DIR / "mech_catalogue").is_dir():
        raise DomainNotFound(
            f"mech-catalogue: the skill's domain library is not in {PACKAGES_DIR}; "
            "install the CLI from a checkout with `make setup` (pip install -e .)."
        )
    import packages  # pylint: disable=import-outside-toplevel

    if importlib.util.find_spec("packages.mech_catalogue") is not None:
        return
    search = getattr(packages, "__path__", None)
    if search is None:  # pragma: no cover - a module named packages, not a package
        raise DomainNotFound(
            f"mech-catalogue: `packages` is {packages.__file__}, not a package; "
            "run from a clean environment (make setup)."
        )
    search.insert(0, str(PACKAGES_DIR))
    sys.modules.pop("packages.mech_catalogue", None)


share_domain()
