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

"""Paths a new user types: an output file in a folder not made yet, a missing input file.

``generate -o DIR/FILE`` creates the missing folders, and a path that cannot be written
(a file where a folder should be) is a coded failure (``file_not_writable``), one JSON
document with ``--json``; ``cid`` reports a path-looking argument that does not exist as
``file_not_found``, as ``validate`` does, and keeps ``invalid_cid`` for CID-shaped text.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK
from mech_catalogue_cli.app import cli

TYPED = Path(__file__).resolve().parents[1] / (
    "libs/mech-catalogue-core/mech_catalogue_core/tests/fixtures/tool_packages/typed_tool"
)


def run(*args: Any) -> Result:
    """Run the CLI (stderr kept apart).

    :param args: command line.
    :return: the result.
    """
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.mark.parametrize(
    "where", ["new/manifest.json", "a/b/c/tools.json", "./fresh/m.json"]
)
def test_generate_creates_the_output_folders(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manifest lands where asked, its bytes those printed without -o."""
    monkeypatch.chdir(tmp_path)
    printed = run("generate", TYPED)
    assert printed.exit_code == EXIT_OK
    written = run("generate", "--json", TYPED, "-o", where)
    assert written.exit_code == EXIT_OK, written.output
    assert json.loads(written.stdout)["ok"] is True
    assert (tmp_path / where).read_bytes() == printed.stdout_bytes


@pytest.mark.parametrize("where", ["taken/manifest.json", "taken/deeper/manifest.json"])
def test_an_unwritable_output_is_a_coded_failure(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file where a folder must be: one JSON document, file_not_writable, what to do."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").write_text("a file, not a folder", encoding="utf-8")
    result = run("generate", "--json", TYPED, "-o", where)
    assert result.exit_code == EXIT_INVALID
    body = json.loads(result.stdout)  # one document, no traceback
    assert body["ok"] is False
    assert body["error"]["code"] == "file_not_writable"
    assert where in body["error"]["message"] and "-o" in body["error"]["message"]
    human = run("generate", TYPED, "-o", where)
    assert human.exit_code == EXIT_INVALID
    assert "file_not_writable" in human.stderr and "Traceback" not in human.output
    assert (tmp_path / "taken").read_text(encoding="utf-8") == "a file, not a folder"


@pytest.mark.parametrize(
    "value", ["out/manifest.json", "manifest.json", "./m", "0xfeed.json", "~/gone.json"]
)
def test_cid_of_a_missing_file_says_no_such_file(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """file_not_found naming the path, not invalid_cid."""
    monkeypatch.chdir(tmp_path)
    body = json.loads(run("cid", "--json", value).stdout)
    assert body["error"]["code"] == "file_not_found", body
    assert value in body["error"]["message"]
    human = run("cid", value)
    assert human.exit_code == EXIT_INVALID and "No such file" in human.stderr


def test_cid_of_a_folder_is_not_a_cid_error(tmp_path: Path) -> None:
    """An existing folder is found, but is no file: file_not_readable."""
    body = json.loads(run("cid", "--json", tmp_path).stdout)
    assert body["error"]["code"] == "file_not_readable"


@pytest.mark.parametrize(
    "value", ["notacid", "ipfs://not-a-cid", "/ipfs/not-a-cid", "0x12"]
)
def test_cid_shaped_text_keeps_its_cid_error(value: str) -> None:
    """CID forms and short digests are still judged as CIDs/digests."""
    body = json.loads(run("cid", "--json", value).stdout)
    assert body["error"]["code"] != "file_not_found"
    assert body["error"]["code"].startswith("invalid_")
