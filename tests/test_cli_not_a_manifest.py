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

"""A manifest command given no manifest says, in one line, what it got and what it expected.

A new user ran ``validate`` on a tool package's ``component.yaml`` and read "not valid
JSON". ``validate``, ``show`` and ``export`` now name a tool package (its folder or its
``component.yaml``) as one, with the ``generate`` command that makes its manifest, and
any other file that is not JSON (YAML, Markdown, an empty or binary file) as not a
manifest; JSON that goes wrong keeps its line and column. Offline, local files only.
"""

import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK
from mech_catalogue_cli.app import cli
from mech_catalogue_cli.commands.options import (
    NOT_A_MANIFEST,
    TOOL_PACKAGE_NOT_MANIFEST,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "tools"
#: the commands that read a manifest argument
READERS = [
    ["validate"],
    ["validate", "--strict"],
    ["show"],
    ["export", "--format", "openai"],
]


def run(*args: Any) -> Result:
    """Run the CLI (stderr kept apart).

    :param args: command line.
    :return: the result.
    """
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(name="package")
def fixture_package(tmp_path: Path) -> Path:
    """A copy of the token_oracle sample in a folder whose name needs shell quoting.

    :param tmp_path: pytest's folder.
    :return: the package folder.
    """
    folder = tmp_path / "my tools" / "token oracle"
    shutil.copytree(EXAMPLES / "token_oracle", folder)
    return folder


def refused_in_one_line(result: Result, code: str) -> str:
    """Check a text-mode refusal: exit 1, nothing on stdout, one line on stderr naming ``code``.

    :param result: the run.
    :param code: the expected failure code.
    :return: the line.
    """
    assert result.exit_code == EXIT_INVALID, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error [{code}] "), result.stderr
    return lines[0]


@pytest.mark.parametrize("command", READERS)
@pytest.mark.parametrize("given", ["component.yaml", ""])
def test_a_tool_package_is_named_with_the_generate_command(
    package: Path, command: Any, given: str
) -> None:
    """Its ``component.yaml`` or its folder: the exact ``generate`` command, exit 1."""
    source = package / given if given else package
    line = refused_in_one_line(run(*command, source), TOOL_PACKAGE_NOT_MANIFEST)
    assert f"`mech-catalogue generate {shlex.quote(str(package))}`" in line
    assert "not valid JSON" not in line
    body = json.loads(run(*command, "--json", source).stdout)
    assert body["ok"] is False and body["error"]["code"] == TOOL_PACKAGE_NOT_MANIFEST
    assert [p["code"] for p in body["problems"]] == [TOOL_PACKAGE_NOT_MANIFEST]


def test_the_suggested_command_makes_a_manifest_that_validates(
    package: Path, tmp_path: Path
) -> None:
    """The command the refusal names, run as written, gives a manifest `validate` accepts."""
    line = refused_in_one_line(
        run("validate", package / "component.yaml"), TOOL_PACKAGE_NOT_MANIFEST
    )
    suggested = shlex.split(line.split("`")[1])
    assert suggested[:2] == ["mech-catalogue", "generate"]
    manifest = tmp_path / "manifest.json"
    made = run(*suggested[1:], "-o", manifest)
    assert made.exit_code == EXIT_OK, made.output
    checked = run("validate", manifest)
    assert checked.exit_code == EXIT_OK and "valid" in checked.stdout


def test_a_component_yaml_in_the_current_folder_names_dot(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``validate component.yaml`` from inside the package suggests ``generate .``."""
    monkeypatch.chdir(package)
    line = refused_in_one_line(
        run("validate", "component.yaml"), TOOL_PACKAGE_NOT_MANIFEST
    )
    assert "`mech-catalogue generate .`" in line


@pytest.mark.parametrize(
    "name,content,ending",
    [
        ("notes.yaml", b"name: dice\ntools:\n  - roll\n", "is not JSON."),
        ("README.md", b"# My mech\n\nIt rolls dice.\n", "is not JSON."),
        ("empty.json", b"", "is empty."),
        ("blank.json", b" \n\t\n", "is empty."),
        ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00", "is not JSON."),
        # a component.yaml that is no tool package's: an open-aea connection's
        (
            "component.yaml",
            b"name: http\nauthor: valory\ntype: connection\nclass_name: X\n",
            "is not JSON.",
        ),
        # a tool package's component.yaml whose callable is missing
        (
            "component.yaml",
            b"name: t\ntype: custom\nentry_point: t.py\n",
            "is not JSON.",
        ),
    ],
)
@pytest.mark.parametrize("command", READERS)
def test_other_text_says_a_manifest_json_was_expected(
    tmp_path: Path, command: Any, name: str, content: bytes, ending: str
) -> None:
    """YAML, Markdown, empty or binary files: one line saying a manifest JSON was expected."""
    path = tmp_path / name
    path.write_bytes(content)
    line = refused_in_one_line(run(*command, path), NOT_A_MANIFEST)
    assert "a mech manifest is a JSON document" in line and line.endswith(ending)
    assert "generate" not in line
    body = json.loads(run(*command, "--json", path).stdout)
    assert body["error"]["code"] == NOT_A_MANIFEST


@pytest.mark.parametrize(
    "content,code",
    [
        ('{"tools": ["roll"],', "invalid_json"),
        ("\n\n{'tools': []}", "invalid_json"),
        ('\ufeff  {"tools": ["roll"]}', "byte_order_mark"),
    ],
)
def test_json_gone_wrong_keeps_its_own_problem(
    tmp_path: Path, content: str, code: str
) -> None:
    """Text beginning as JSON is still read as a broken manifest, saying where it broke."""
    path = (
        tmp_path / "component.yaml"
    )  # the name does not matter once it begins as JSON
    path.write_text(content, encoding="utf-8")
    body = json.loads(run("validate", "--json", path).stdout)
    assert body["error"]["code"] == "invalid_manifest"
    assert [p["code"] for p in body["problems"]] == [code]
    assert code != "invalid_json" or "line" in body["problems"][0]["message"]


def test_a_json_manifest_named_component_yaml_is_read_as_a_manifest(
    tmp_path: Path,
) -> None:
    """JSON comes first: a valid manifest is valid whatever the file is called."""
    path = tmp_path / "component.yaml"
    path.write_text('{"tools": ["roll"]}', encoding="utf-8")
    result = run("validate", path)
    assert result.exit_code == EXIT_OK and "valid" in result.stdout


def test_a_folder_without_component_yaml_asks_for_the_manifest_file(
    tmp_path: Path,
) -> None:
    """Any other folder: not a manifest file, no ``generate`` suggested."""
    line = refused_in_one_line(run("validate", tmp_path), "file_not_readable")
    assert "is a folder, not a manifest file" in line and "generate" not in line
