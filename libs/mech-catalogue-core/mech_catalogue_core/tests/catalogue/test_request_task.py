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

"""The requester's task: a YAML or JSON file (or the parameters), checked field by field."""

import json
from pathlib import Path

import pytest
from mech_catalogue_core.adapters.task_file import load_task
from mech_catalogue_core.catalogue.request_task import (
    MAX_TASK_FILE_BYTES,
    RequestTask,
    TaskError,
    task_from,
)

REPO_ROOT = Path(__file__).resolve().parents[5]


def write(tmp_path: Path, text: str) -> str:
    """Write a task file.

    :param tmp_path: the folder.
    :param text: its text.
    :return: its path.
    """
    path = tmp_path / "task.yaml"
    path.write_text(text)
    return str(path)


def test_yaml_and_json_give_the_same_task(tmp_path: Path) -> None:
    """YAML as the framework's configuration; JSON is read by the same loader."""
    yaml_text = "prompt: Rain?\nkind: prediction\narguments:\n  horizon: 2\n"
    json_text = json.dumps(
        {"prompt": "Rain?", "kind": "prediction", "arguments": {"horizon": 2}}
    )
    expected = RequestTask("Rain?", kind="prediction", arguments={"horizon": 2})
    assert load_task(write(tmp_path, yaml_text)) == expected
    assert load_task(write(tmp_path, json_text)) == expected
    assert expected.wanted == "tool kind 'prediction'"


def test_max_price_names_the_assets_paid_in_smallest_units(tmp_path: Path) -> None:
    """Integers by asset; absent means the native token only, uncapped (None)."""
    text = "prompt: Rain?\ntool: t\nmax_price:\n  usdc: 1500000\n  native: 0\n"
    task = load_task(write(tmp_path, text))
    assert task.max_price == {"usdc": 1_500_000, "native": 0}
    assert load_task(write(tmp_path, "prompt: Rain?\ntool: t\n")).max_price is None


def test_the_example_task_file_is_valid() -> None:
    """``examples/requester_task.yaml``, which the docs point to, loads."""
    example = REPO_ROOT / "examples" / "requester_task.yaml"
    if not example.is_file():
        pytest.skip("not in a checkout: examples/requester_task.yaml is absent")
    task = load_task(str(example))
    assert task.prompt and (task.tool_name or task.kind)


@pytest.mark.parametrize(
    "document, field",
    [
        ({"kind": "chat"}, "field 'prompt'"),
        ({"prompt": "", "kind": "chat"}, "field 'prompt'"),
        ({"prompt": "x" * 10_001, "kind": "chat"}, "field 'prompt'"),
        ({"prompt": "p", "kind": "Chat Bot"}, "field 'kind'"),
        ({"prompt": "p", "tool": 5}, "field 'tool'"),
        ({"prompt": "p", "tool": "t", "arguments": "x"}, "field 'arguments'"),
        ({"prompt": "p", "tool": "t", "pay_to": "0x1"}, "field 'pay_to'"),
        (
            {"prompt": "p", "tool": "t", "arguments": {"prompt": "q"}},
            "arguments/prompt",
        ),
        ({"prompt": "p"}, "fields 'tool' and 'kind'"),
        ({"prompt": "p", "tool": "t", "kind": "chat"}, "fields 'tool' and 'kind'"),
        (["prompt"], "field '(top level)'"),
        ({"prompt": "p", "tool": "t", "max_price": {}}, "field 'max_price'"),
        ({"prompt": "p", "tool": "t", "max_price": {"credits": 1}}, "'credits'"),
        ({"prompt": "p", "tool": "t", "max_price": {"usdc": -1}}, "max_price/usdc"),
        ({"prompt": "p", "tool": "t", "max_price": {"usdc": "1e6"}}, "max_price/usdc"),
        ({"prompt": "p", "tool": "t", "max_price": {"olas": 1.5}}, "max_price/olas"),
        ({"prompt": "p", "tool": "t", "max_price": {"olas": True}}, "max_price/olas"),
    ],
)
def test_each_invalid_field_is_named(document: object, field: str) -> None:
    """The message names the source and the field, so the operator knows what to fix.

    :param document: the parsed task.
    :param field: part of the expected message.
    """
    with pytest.raises(TaskError) as caught:
        task_from(document, "task file t.yaml")
    assert str(caught.value).startswith("task file t.yaml: ")
    assert field in str(caught.value)


def test_a_file_over_the_cap_is_refused_unparsed(tmp_path: Path) -> None:
    """Only the cap plus one byte is read."""
    path = write(tmp_path, "prompt: " + "x" * MAX_TASK_FILE_BYTES + "\ntool: t\n")
    with pytest.raises(TaskError, match="larger than 65536 bytes"):
        load_task(path)


def test_yaml_aliases_are_refused(tmp_path: Path) -> None:
    """A chain of aliases would expand exponentially once serialised into the request."""
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nprompt: p\ntool: t\narguments: {b: *b}\n"
    with pytest.raises(TaskError, match="aliases"):
        load_task(write(tmp_path, bomb))


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"prompt: [\n", "not valid YAML or JSON (line 2)"),
        (b"prompt: \xff\xfe\n", "not valid YAML or JSON"),
        (b"!!python/object:os.system {}\n", "not valid YAML or JSON"),
    ],
)
def test_unparseable_files_are_refused(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    """Broken YAML, non-UTF-8 bytes and Python tags (never executed) are refused.

    :param tmp_path: the folder.
    :param content: the file's bytes.
    :param reason: part of the expected message.
    """
    path = tmp_path / "task.yaml"
    path.write_bytes(content)
    with pytest.raises(TaskError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        load_task(str(path))


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    """Unreadable: the path and the OS reason, no traceback."""
    missing = tmp_path / "nope.yaml"
    with pytest.raises(TaskError, match=f"task file {missing}: cannot be read"):
        load_task(str(missing))
