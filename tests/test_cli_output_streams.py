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

"""Where warnings go: the rule of docs/cli.md, "Where output goes", command by command.

A new user saw a manifest's warnings on stdout with ``show`` and ``validate`` but on
stderr with ``generate`` and a failing ``validate --strict``. The rule that explains
each: an inspecting command's findings are its report (stdout); a data product
(``generate``'s manifest, ``export``'s JSON) holds nothing else, so its warnings go to
stderr, with or without ``-o``; a failing command leaves stdout empty and says
everything on stderr; ``--json`` is one document on stdout. Offline, local files.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from mech_catalogue_core.model.canonical import canonical_bytes

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK
from mech_catalogue_cli.app import cli

PACKAGE = Path(__file__).resolve().parents[1] / (
    "libs/mech-catalogue-core/mech_catalogue_core/tests/fixtures/tool_packages/echo_tool"
)
#: a warning every manifest below gets (no top-level name)
WARNING = "empty_manifest_name"


def run(*args: Any) -> Result:
    """Run the CLI (stderr kept apart).

    :param args: command line.
    :return: the result.
    """
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(name="manifest")
def fixture_manifest(tmp_path: Path) -> Path:
    """A valid manifest with warnings only (no name, no description, an untyped tool).

    :param tmp_path: pytest's folder.
    :return: its path.
    """
    path = tmp_path / "manifest.json"
    path.write_text('{"tools": ["alpha"]}', encoding="utf-8")
    return path


@pytest.mark.parametrize("command", [["validate"], ["show"]])
def test_an_inspecting_command_s_findings_are_its_report_on_stdout(
    manifest: Path, command: Any
) -> None:
    """``validate`` and ``show`` print the warnings they find with their result."""
    result = run(*command, manifest)
    assert result.exit_code == EXIT_OK, result.output
    assert WARNING in result.stdout and result.stderr == ""


def test_derive_s_findings_are_its_report_on_stdout(tmp_path: Path) -> None:
    """``derive`` reports a package: its table and the problems found in it, on stdout."""
    (tmp_path / "component.yaml").write_text(
        "name: t\nauthor: a\nversion: 0.1.0\ntype: skill\nentry_point: t.py\n"
        "callable: run\n",
        encoding="utf-8",
    )
    (tmp_path / "t.py").write_text(
        "def run(**kwargs):\n    return kwargs['depth']\n", encoding="utf-8"
    )
    result = run("derive", tmp_path)
    assert result.exit_code == EXIT_OK, result.output
    assert "depth" in result.stdout and "not_a_custom_component" in result.stdout
    assert result.stderr == ""


def test_a_failing_strict_validate_leaves_stdout_empty(manifest: Path) -> None:
    """The same warnings fail ``--strict``: the failure and its problems on stderr."""
    result = run("validate", "--strict", manifest)
    assert result.exit_code == EXIT_INVALID
    assert result.stdout == ""
    assert "warnings_as_errors" in result.stderr and WARNING in result.stderr


def test_generate_s_stdout_is_the_manifest_bytes_alone() -> None:
    """Warnings on stderr: stdout is the canonical manifest, byte for byte."""
    result = run("generate", PACKAGE)
    assert result.exit_code == EXIT_OK, result.output
    assert WARNING in result.stderr and WARNING not in result.stdout
    assert result.stdout_bytes == canonical_bytes(json.loads(result.stdout))


def test_generate_to_a_file_keeps_its_warnings_on_stderr(tmp_path: Path) -> None:
    """With ``-o`` the warnings stay where the same command prints them without it."""
    out = tmp_path / "m.json"
    result = run("generate", PACKAGE, "-o", out)
    assert result.exit_code == EXIT_OK, result.output
    assert result.stdout.startswith(f"wrote {out}") and WARNING not in result.stdout
    assert WARNING in result.stderr


def test_export_s_stdout_is_the_json_alone(manifest: Path) -> None:
    """``export`` prints the schemas on stdout and the manifest's warnings on stderr."""
    result = run("export", "--format", "openai", manifest)
    assert result.exit_code == EXIT_OK, result.output
    assert json.loads(result.stdout)[0]["function"]["name"] == "alpha"
    assert WARNING in result.stderr


@pytest.mark.parametrize("command", [["validate"], ["validate", "--strict"], ["show"]])
def test_json_is_one_document_on_stdout_whatever_the_outcome(
    manifest: Path, command: Any
) -> None:
    """``--json``: warnings and failures inside the one document, nothing on stderr."""
    result = run(*command, "--json", manifest)
    body = json.loads(result.stdout)
    assert result.stderr == ""
    assert WARNING in [problem["code"] for problem in body["problems"]]
    strict = command == ["validate", "--strict"]
    assert result.exit_code == (EXIT_INVALID if strict else EXIT_OK)
    assert body["ok"] is not strict if "ok" in body else not strict


def test_export_s_json_is_the_export_itself_its_warnings_on_stderr(
    manifest: Path,
) -> None:
    """The exported format has no place for problems: ``--json`` changes nothing."""
    plain = run("export", "--format", "openai", manifest)
    result = run("export", "--format", "openai", "--json", manifest)
    assert result.exit_code == EXIT_OK and result.stdout == plain.stdout
    assert WARNING in result.stderr
