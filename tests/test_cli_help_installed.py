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

"""Help and messages of the CLI name nothing only a checkout has, installed or not.

A CLI installed from a wheel has no ``docs/`` or ``examples/`` folder and looks for its
devnet in the per-user state folder. Here the package is copied into a folder laid out as
``site-packages`` (no ``pyproject.toml`` beside it, so :func:`folders.checkout_of` takes it
for an installed one) and every command's ``--help`` is read from it in a subprocess: a
document is cited by its URL, ``examples/`` comes with where the samples are, and
``--devnet-dir`` names the folders that CLI really looks in. The checkout's own help is
read the same way.
"""

import json
import os
import re
import shutil
import subprocess  # nosec B404: runs this checkout's own package
import sys
from pathlib import Path
from typing import Dict

import pytest
from mech_catalogue_core.model.references import (
    DOCS_URL,
    MANIFEST_SPEC_URL,
    PROJECT_URL,
)

from mech_catalogue_cli.folders import (
    default_folders,
    devnet_folders_help,
    samples_help,
)
from scripts.toolchain import REPO_ROOT

#: a relative path to the project's documents: ``docs/x.md`` not inside a URL
RELATIVE_DOC = re.compile(r"(?<![\w/.-])docs/[\w-]+\.md")
#: prints every command's --help as JSON (CliRunner in the child process)
HELP_DUMP = """
import json
from click.testing import CliRunner
from mech_catalogue_cli.app import cli
runner = CliRunner()
texts = {"": runner.invoke(cli, ["--help"]).output}
for name in cli.list_commands(None):
    texts[name] = runner.invoke(cli, [name, "--help"]).output
print(json.dumps(texts))
"""


def helps(pythonpath: str, state: Path) -> Dict[str, str]:
    """Every command's help as the CLI on ``pythonpath`` prints it.

    :param pythonpath: where ``mech_catalogue_cli`` and the library are imported from.
    :param state: ``$XDG_STATE_HOME`` (the per-user state folder's parent).
    :return: help text by command name (``""``: the group's).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("MECH_CATALOGUE")}
    env.update(PYTHONPATH=pythonpath, XDG_STATE_HOME=str(state), COLUMNS="400")
    done = subprocess.run(  # nosec B603: fixed interpreter and script
        [sys.executable, "-c", HELP_DUMP],
        cwd=state,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return {k: unwrapped(v) for k, v in json.loads(done.stdout).items()}


def unwrapped(text: str) -> str:
    """Help text with click's line wrapping undone (it breaks lines at hyphens too).

    :param text: help as printed.
    :return: one line, single spaces, words cut at a hyphen joined again.
    """
    return re.sub(r"\s+", " ", re.sub(r"-\n\s*", "-", text))


@pytest.fixture(name="installed", scope="module")
def fixture_installed(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, str]:
    """Help texts of the package copied into a site-packages-like folder.

    :param tmp_path_factory: pytest's.
    :return: help text by command name.
    """
    root = tmp_path_factory.mktemp("installed")
    site = root / "site-packages"
    shutil.copytree(
        REPO_ROOT / "mech_catalogue_cli",
        site / "mech_catalogue_cli",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    library = REPO_ROOT / "libs" / "mech-catalogue-core"
    return helps(f"{site}{os.pathsep}{library}", root)


@pytest.fixture(name="checkout", scope="module")
def fixture_checkout(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, str]:
    """Help texts of this checkout's package.

    :param tmp_path_factory: pytest's.
    :return: help text by command name.
    """
    library = REPO_ROOT / "libs" / "mech-catalogue-core"
    return helps(
        f"{REPO_ROOT}{os.pathsep}{library}", tmp_path_factory.mktemp("checkout")
    )


#: mcp_cmd.py is another change's file; its help still says "See docs/mcp.md"
@pytest.mark.parametrize("way", ["installed", "checkout"])
def test_no_help_cites_a_document_by_a_relative_path(
    way: str, request: pytest.FixtureRequest
) -> None:
    """Documents are cited by URL; `examples/` always comes with where it is."""
    texts: Dict[str, str] = request.getfixturevalue(way)
    assert len(texts) > 8 and all(texts.values())
    for name, text in texts.items():
        assert not RELATIVE_DOC.search(text), (name, RELATIVE_DOC.findall(text))
        if "examples/tools" in text:
            assert "examples/ is the" in text, name
    assert f"{DOCS_URL}/tutorial.md" in texts[""]


def test_the_installed_help_points_at_the_repository_and_the_state_folder(
    installed: Dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Samples: the repository's URL; --devnet-dir: the user's state folder, not .devnet."""
    assert f"{PROJECT_URL}/tree/main/examples" in installed["generate"]
    assert f"{PROJECT_URL}/tree/main/examples" in installed[""]
    shown = installed["show"]
    assert ".run/devnet" not in shown and " .devnet " not in shown
    assert "mech-catalogue/devnet" in shown and "mech-catalogue/run/devnet" in shown
    assert tmp_path_factory.getbasetemp().as_posix() in shown


def test_the_checkout_help_names_its_folders(checkout: Dict[str, str]) -> None:
    """In a checkout: .devnet, .run/devnet and the checkout's examples folder."""
    assert ".devnet (make devnet-up) and .run/devnet (make run)" in checkout["show"]
    assert f"{DOCS_URL}/tutorial.md" in checkout[""]
    assert str(REPO_ROOT / "examples") in checkout["generate"]


def test_the_rule_as_said_for_both_ways(tmp_path: Path) -> None:
    """The pure functions behind the help, on both layouts."""
    installed = default_folders(None, tmp_path / "state")
    said = devnet_folders_help(installed)
    assert str(tmp_path / "state" / "devnet") in said
    assert str(tmp_path / "state" / "run" / "devnet") in said
    assert PROJECT_URL in samples_help(installed, PROJECT_URL)
    checkout = default_folders(tmp_path / "repo", tmp_path / "state")
    assert ".run/devnet" in devnet_folders_help(checkout)
    assert str(tmp_path / "repo" / "examples") in samples_help(checkout, PROJECT_URL)


def test_schema_and_type_messages_cite_the_spec_by_url(tmp_path: Path) -> None:
    """A problem message names the specification where any user can open it."""
    from click.testing import CliRunner  # pylint: disable=import-outside-toplevel

    from mech_catalogue_cli.app import cli  # pylint: disable=import-outside-toplevel

    path = tmp_path / "m.json"
    path.write_text(
        json.dumps(
            {
                "name": "m",
                "description": "d",
                "tools": ["t"],
                "toolMetadata": {
                    "t": {
                        "name": "t",
                        "description": "d",
                        "input": {"type": "text", "description": "q"},
                        "output": {"type": "text", "description": "a"},
                        "arguments": [{"identifier": "x", "type": "complex128"}],
                    }
                },
                "specVersion": 1,
            }
        ),
        encoding="utf-8",
    )
    result = CliRunner().invoke(cli, ["validate", "--json", str(path)])
    messages = [p["message"] for p in json.loads(result.stdout)["problems"]]
    assert any(MANIFEST_SPEC_URL in m for m in messages), messages
    assert not any(RELATIVE_DOC.search(m) for m in messages), messages
