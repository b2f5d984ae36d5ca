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

"""Tests for domain.derive: typed arguments from tool packages by static analysis only."""

import runpy
import sys
from pathlib import Path
from typing import Dict

import pytest
from mech_catalogue_core.adapters import package_folder
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive import derive
from mech_catalogue_core.derive.derive import (
    DeriveError,
    annotation_type,
    derive_source,
    parse_param_docs,
)
from mech_catalogue_core.model.tool import (
    Argument,
    Tool,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tool_packages"


def _by_name(package: derive.DerivedPackage) -> Dict[str, derive.DerivedArgument]:
    return {a.identifier: a for a in package.arguments}


def _write_package(folder: Path, source: str, component: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "component.yaml").write_text(
        component
        or "name: probe\nauthor: test\nversion: 0.1.0\ntype: custom\n"
        "description: probe\nentry_point: probe.py\ncallable: run\n"
    )
    (folder / "probe.py").write_text(source)
    return folder


def test_kwargs_reads_defaults_and_tool_list_comprehension() -> None:
    """Subscripts are required, .get reads optional with their literal defaults typed."""
    package = derive_package(FIXTURES / "echo_tool")
    assert package.tool_names == ("echo-small", "echo-large", "echo-legacy")
    args = _by_name(package)
    assert args["prompt"].required and args["prompt"].type == "str"
    assert args["prompt"].description == "the text to echo back."
    assert (args["max_tokens"].type, args["max_tokens"].default_json) == ("int", "500")
    assert not args["max_tokens"].required
    assert (args["temperature"].type, args["temperature"].default_json) == (
        "float",
        "0.7",
    )
    assert args["temperature"].description == "sampling temperature, between 0 and 2."
    # model: kwargs.get("model") falls back to component params.default_model
    assert args["model"].default_json == '"echo-large"' and not args["model"].required


def test_runtime_kwargs_are_not_request_arguments() -> None:
    """api_keys, counter_callback and tool come from the mech, not from the caller."""
    package = derive_package(FIXTURES / "echo_tool")
    runtime = {a.identifier for a in package.arguments if a.runtime}
    assert runtime == {"api_keys", "counter_callback", "tool"}
    assert not runtime & {a.identifier for a in package.request_arguments}


def test_signature_annotations_helpers_and_dispatch_table() -> None:
    """Named parameters, helpers given kwargs (**, positional, dispatch dict) are followed."""
    package = derive_package(FIXTURES / "typed_tool")
    assert package.tool_names == ("transfer-native", "transfer-erc20")
    args = _by_name(package)
    assert (args["amount"].type, args["amount"].required) == ("int", True)
    assert args["tags"].type == "list[str]" and args["tags"].nullable
    assert args["tags"].default_json == "null" and not args["tags"].required
    assert (args["dry_run"].type, args["dry_run"].default_json) == ("bool", "false")
    assert (args["nonce"].type, args["nonce"].type_source) == ("int", "annotation")
    assert (args["gas_price"].type, args["gas_price"].type_source) == (
        "float",
        "conversion",
    )
    # via the dispatch table -> _transfer(**kwargs) -> _build(**kwargs) / _options(kwargs)
    assert args["sender"].required and args["sender"].type == "str"
    assert args["sender"].description == "the 0x address paying."  # from run's Args:
    assert args["memo"].default_json == '""' and not args["memo"].required
    assert (args["slippage"].type, args["slippage"].default_json) == ("float", "0.5")
    assert (
        args["deadline"].type == "int" and not args["deadline"].required
    )  # `in` guard
    assert args["chain_id"].default_json == "100"
    assert "reference" in args  # helper called positionally with the mapping


def test_to_tools_gives_model_tools_with_typed_arguments() -> None:
    """Output is the shared model: one Tool per served name, same typed arguments."""
    tools = derive_package(FIXTURES / "typed_tool").to_tools()
    assert [t.name for t in tools] == ["transfer-native", "transfer-erc20"]
    assert all(isinstance(t, Tool) for t in tools)
    arguments = {a.identifier: a for a in tools[0].arguments}
    assert all(isinstance(a, Argument) for a in arguments.values())
    assert "tool" not in arguments and "api_keys" not in arguments
    assert arguments["amount"].schema == {"type": "integer"}
    assert arguments["tags"].type == "optional[list[str]]"
    assert arguments["tags"].schema == {
        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]
    }
    schema = tools[0].input_schema()
    assert {"prompt", "amount", "nonce", "sender"} <= set(schema["required"])
    assert "tags" not in schema["required"]


#: A tool whose import writes a marker file and then raises. It is written to a temporary
#: folder at test time, never kept as a ``.py`` file in the skill: the AEA skill loader
#: imports every module under the skill directory, and this one would break loading.
SIDE_EFFECT_TOOL = '''\
"""Importing this module writes a marker file and raises: static analysis must not run it."""

import os
import pathlib

pathlib.Path(os.environ["MECH_CATALOGUE_IMPORT_MARKER"]).write_text("imported")
raise RuntimeError("side_effect_tool was imported; tool code must never be executed")

ALLOWED_TOOLS = ["side-effect"]


def run(**kwargs):
    """Never runs.

    :param prompt: the request text.
    """
    return kwargs["prompt"], None, None, None
'''


def test_import_side_effects_are_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tool writes a marker and raises at import; deriving must do neither."""
    marker = tmp_path / "imported.marker"
    monkeypatch.setenv("MECH_CATALOGUE_IMPORT_MARKER", str(marker))
    folder = _write_package(tmp_path / "side_effect_tool", SIDE_EFFECT_TOOL)
    modules_before = set(sys.modules)
    package = derive_package(folder)
    assert not marker.exists()
    assert not {m for m in set(sys.modules) - modules_before if "probe" in m}
    assert [a.identifier for a in package.request_arguments] == ["prompt"]
    # the raise at import precedes ALLOWED_TOOLS, yet the static scope still reads it
    assert package.tool_names == ("side-effect",)
    # the marker check can fail: running the module does write it
    with pytest.raises(RuntimeError, match="was imported"):
        runpy.run_path(str(folder / "probe.py"))
    assert marker.read_text() == "imported"


def test_missing_tool_list_falls_back_to_component_name(tmp_path: Path) -> None:
    """No ALLOWED_TOOLS: a warning, and the component name is the tool name."""
    folder = _write_package(
        tmp_path / "probe", "def run(**kwargs):\n    return kwargs['prompt']\n"
    )
    package = derive_package(folder)
    assert package.tool_names == ("probe",)
    assert [p.code for p in package.problems] == [derive.NO_TOOL_LIST]


def test_non_literal_tool_list_and_dynamic_key_warn(tmp_path: Path) -> None:
    """A computed tool list or kwargs[variable] gives a warning naming what to do."""
    source = (
        "import os\nALLOWED_TOOLS = os.environ['TOOLS'].split(',')\n"
        "def run(**kwargs):\n    key = 'x'\n    return kwargs[key], kwargs.get('y', 3)\n"
    )
    package = derive_package(_write_package(tmp_path / "probe", source))
    codes = [p.code for p in package.problems]
    assert (
        derive.UNRESOLVED_TOOL_LIST in codes and derive.DYNAMIC_KWARGS_ACCESS in codes
    )
    assert _by_name(package)["y"].default_json == "3"


def test_errors_name_the_file_and_what_to_do(tmp_path: Path) -> None:
    """Unusable packages raise DeriveError with a stable code and a sentence."""
    with pytest.raises(DeriveError) as missing:
        derive_package(tmp_path / "nowhere")
    assert missing.value.problem.code == derive.PACKAGE_NOT_FOUND
    assert "no such folder" in str(missing.value)
    assert "repository's checkout" in str(missing.value)  # where the docs' examples are

    (tmp_path / "empty").mkdir()
    with pytest.raises(DeriveError) as empty:
        derive_package(tmp_path / "empty")
    assert empty.value.problem.code == derive.PACKAGE_NOT_FOUND
    assert "no component.yaml here" in str(empty.value)

    broken = _write_package(tmp_path / "syntax", "def run(**kwargs:\n")
    with pytest.raises(DeriveError) as syntax:
        derive_package(broken)
    assert syntax.value.problem.code == derive.SOURCE_SYNTAX_ERROR
    assert "line 1" in str(syntax.value)

    no_callable = _write_package(
        tmp_path / "nocall", "def other(**kwargs):\n    pass\n"
    )
    with pytest.raises(DeriveError) as callable_error:
        derive_package(no_callable)
    assert callable_error.value.problem.code == derive.CALLABLE_NOT_FOUND
    assert "'run'" in str(callable_error.value)


@pytest.mark.parametrize(
    "component,code",
    [
        ("just a string", derive.INVALID_COMPONENT_YAML),
        ("name: x\ncallable: run\n", derive.INVALID_COMPONENT_YAML),
        ("name: x\nentry_point: [1]\ncallable: run\n", derive.INVALID_COMPONENT_YAML),
        (
            "name: x\nentry_point: ../outside.py\ncallable: run\n",
            derive.ENTRY_POINT_NOT_FOUND,
        ),
        (
            "name: x\nentry_point: absent.py\ncallable: run\n",
            derive.ENTRY_POINT_NOT_FOUND,
        ),
        ("name: [unclosed\n", derive.INVALID_COMPONENT_YAML),
    ],
)
def test_bad_component_yaml(tmp_path: Path, component: str, code: str) -> None:
    """Bad component.yaml fields, or an entry point escaping the folder, are refused."""
    (tmp_path / "outside.py").write_text("def run(**kwargs):\n    pass\n")
    folder = _write_package(
        tmp_path / "pkg", "def run(**kwargs):\n    pass\n", component
    )
    with pytest.raises(DeriveError) as raised:
        derive_package(folder)
    assert raised.value.problem.code == code


def test_not_custom_type_is_a_warning(tmp_path: Path) -> None:
    """A type other than custom is analysed anyway, with a warning."""
    component = "name: p\ntype: skill\nentry_point: probe.py\ncallable: run\n"
    folder = _write_package(
        tmp_path / "p", "ALLOWED_TOOLS=['a']\ndef run(**kw):\n    pass\n", component
    )
    assert derive.NOT_A_CUSTOM_COMPONENT in [
        p.code for p in derive_package(folder).problems
    ]


def test_oversized_source_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sources above the byte cap are not parsed."""
    monkeypatch.setattr(package_folder, "MAX_SOURCE_BYTES", 100)
    folder = _write_package(
        tmp_path / "big", "x = 1\n" * 50 + "def run(**kwargs):\n    pass\n"
    )
    with pytest.raises(DeriveError) as raised:
        derive_package(folder)
    assert raised.value.problem.code == derive.SOURCE_TOO_LARGE


def test_pop_without_default_is_required_and_setdefault_optional() -> None:
    """A pop without default raises like a subscript; setdefault supplies a default."""
    source = "def run(**kw):\n    a = kw.pop('a')\n    b = kw.setdefault('b', [1, 2])\n    return a, b\n"
    args = _by_name(derive_source(source))
    assert args["a"].required
    assert (args["b"].required, args["b"].type, args["b"].default_json) == (
        False,
        "list[int]",
        "[1,2]",
    )


def test_aliases_of_the_mapping_are_followed() -> None:
    """Aliases (params = kwargs or dict(kwargs)) then params["x"] count as reads of x."""
    source = "def run(**kwargs):\n    params = dict(kwargs)\n    return params['x'], params.get('y', True)\n"
    args = _by_name(derive_source(source))
    assert args["x"].required and args["y"].type == "bool"


def test_recursive_helpers_terminate() -> None:
    """A helper calling itself with the mapping is visited once."""
    source = (
        "def helper(p):\n    return helper(p) if p.get('again') else p['z']\n"
        "def run(**kwargs):\n    return helper(kwargs)\n"
    )
    args = _by_name(derive_source(source))
    assert set(args) == {"again", "z"}


def test_parse_param_docs_sphinx_and_google() -> None:
    """Both docstring styles yield per-parameter text, continuation lines joined."""
    sphinx = ":param str a: first\n    continued\n:param b: second\n:return: x"
    assert parse_param_docs(sphinx) == {"a": "first continued", "b": "second"}
    google = "Summary.\n\nArgs:\n    a (int): first\n        more\n    b: second\n\nReturns:\n    x"
    assert parse_param_docs(google) == {"a": "first more", "b": "second"}


@pytest.mark.parametrize(
    "annotation,expected",
    [
        ("int", ("int", False)),
        ("Optional[str]", ("str", True)),
        ("str | None", ("str", True)),
        ("Union[int, float]", ("float", False)),
        ("List[str]", ("list[str]", False)),
        ("typing.Dict[str, int]", ("dict", False)),
        ("'bool'", ("bool", False)),
        ("SomeClass", ("any", False)),
    ],
)
def test_annotation_type(annotation: str, expected: tuple) -> None:
    """Annotations map onto the type vocabulary; unknown classes are any."""
    import ast  # pylint: disable=import-outside-toplevel

    assert annotation_type(ast.parse(annotation, mode="eval").body) == expected
