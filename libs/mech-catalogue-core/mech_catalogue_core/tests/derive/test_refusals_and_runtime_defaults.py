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

"""Refused when missing, wherever the check sits; defaults computed at run time typed (issue #34 item 7).

Tool modules written here in the style of public mech tools: ``run`` checks the tool
name, raises, returns early for missing keys, cleans a value (``prompt = prompt.strip()``)
and only then refuses to go on without it. A value read with a default computed at run
time (``float(os.getenv(...))``, ``datetime.now().strftime(...)``, an f-string, a module
table looked up by the tool name) has the type the code gives it, not ``any``.
"""

from pathlib import Path
from typing import Dict

import pytest
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive.derive import (
    DerivedArgument,
)

COMPONENT = (
    "name: probe\nauthor: test\nversion: 0.1.0\ntype: custom\n"
    "description: probe\nentry_point: probe.py\ncallable: run\n"
)

EARLY_RETURNS = '''
import os
from typing import Any, Optional, Tuple

ALLOWED_TOOLS = ["summarise-page", "summarise-feed"]


def run(**kwargs) -> Tuple[Optional[str], Any, Any, Any]:
    """Summarise."""
    tool = kwargs.get("tool")
    if tool not in ALLOWED_TOOLS:
        raise ValueError(f"Tool {tool} is not supported.")
    if kwargs.get("api_keys") is None:
        return "Missing API keys.", None, None, None
    counter = kwargs.get("counter_callback")
    if counter is not None and not callable(counter):
        return "Bad callback.", None, None, None
    with open(os.devnull, encoding="utf-8") as sink:
        page = kwargs.get("page")
        page = page.strip() if page else page
        if not page:
            return "Error: no page given.", None, None, None
    topic = kwargs.get("topic", "").strip().lower()
    if not topic:
        return "Error: no topic given.", None, None, None
    try:
        style = kwargs.get("style")
        style = str(style)
    except TypeError:
        raise
    if style is None:
        return "Error: no style.", None, None, None
    note = kwargs.get("note")
    note = "(none)"
    if note is None:
        return "never", None, None, None
    return page + topic + style + note + str(sink), None, None, None
'''

RUNTIME_DEFAULTS = '''
import os
from datetime import datetime

ALLOWED_TOOLS = ["forecast"]
DEFAULTS = {"horizon": 7, "units": "metric"}
MODEL_BY_TOOL = {"forecast": "weather-large", "nowcast": "weather-small"}
LIMITS = [10, 20, 50]


def pick(name):
    return name


def run(**kwargs):
    """Forecast."""
    tool = kwargs["tool"]
    timeout = kwargs.get("timeout", float(os.getenv("FORECAST_TIMEOUT", "30")))
    retries = kwargs.get("retries", int(os.environ.get("RETRIES", "3")))
    day = kwargs.get("day", datetime.now().strftime("%Y-%m-%d"))
    label = kwargs.get("label", f"forecast-{os.getpid()}")
    horizon = kwargs.get("horizon", DEFAULTS.get("horizon"))
    units = kwargs.get("units", DEFAULTS["units"])
    model = kwargs.get("engine", MODEL_BY_TOOL[tool])
    limit = kwargs.get("limit", LIMITS[retries % 3])
    region = kwargs.get("region", os.getenv("REGION"))
    source = kwargs.get("source", pick(tool))
    verbose = kwargs.get("verbose", os.getenv("VERBOSE") == "1")
    return str((timeout, day, label, horizon, units, model, limit, region, source, verbose)), None, None, None
'''


def _derive(tmp_path: Path, source: str) -> Dict[str, DerivedArgument]:
    (tmp_path / "component.yaml").write_text(COMPONENT)
    (tmp_path / "probe.py").write_text(source)
    package = derive_package(tmp_path)
    return {a.identifier: a for a in package.arguments if not a.runtime}


def test_refused_when_missing_after_early_returns_a_raise_and_a_cleaning(
    tmp_path: Path,
) -> None:
    """``page``, ``topic`` and ``style`` are refused when missing, after cleaning steps."""
    arguments = _derive(tmp_path, EARLY_RETURNS)
    for name in ("page", "topic", "style"):
        assert arguments[name].required, (name, arguments[name].evidence)
        assert any(e.endswith("refused_when_missing") for e in arguments[name].evidence)
        assert arguments[name].default_json is None
    # rebound to a constant before the check: the check is not about the request's value
    assert not arguments["note"].required


@pytest.mark.parametrize(
    "identifier,kind,default",
    [
        ("timeout", "float", None),
        ("retries", "int", None),
        ("day", "str", None),
        ("label", "str", None),
        ("horizon", "int", "7"),
        ("units", "str", '"metric"'),
        ("engine", "str", None),
        ("limit", "int", None),
        ("verbose", "bool", None),
    ],
)
def test_a_default_computed_at_run_time_has_the_type_the_code_gives(
    tmp_path: Path, identifier: str, kind: str, default: object
) -> None:
    """Conversions, string methods, f-strings, module tables: typed; the value only when known."""
    argument = _derive(tmp_path, RUNTIME_DEFAULTS)[identifier]
    assert (argument.type, argument.default_json) == (kind, default)
    assert not argument.required


@pytest.mark.parametrize("identifier", ["region", "source"])
def test_a_default_of_unknown_type_stays_any(tmp_path: Path, identifier: str) -> None:
    """``os.getenv`` without a default may be None; a module function's result is unknown."""
    argument = _derive(tmp_path, RUNTIME_DEFAULTS)[identifier]
    assert argument.type == "any" and not argument.required
