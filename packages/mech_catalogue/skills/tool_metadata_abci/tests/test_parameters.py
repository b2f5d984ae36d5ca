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

"""The one parameter reader (``parameters.py``) both skills use: types, defaults, refusals."""

from typing import Any, Dict

import pytest

from packages.mech_catalogue.skills.tool_metadata_abci.parameters import (
    ParameterError,
    require,
    take,
    take_optional_str,
    take_positive,
)


def test_take_pops_the_key_and_keeps_the_others() -> None:
    """The value comes back and the key is gone, so BaseParams never sees it."""
    kwargs: Dict[str, Any] = {"chain_id": 100, "other": "x"}
    assert take(kwargs, "chain_id", int) == 100
    assert kwargs == {"other": "x"}


def test_absent_required_parameter_is_named_with_its_type() -> None:
    """No default: absence is refused with the parameter's name and the type to set."""
    with pytest.raises(ParameterError, match="max_ids_per_registry is not set.*int"):
        take({}, "max_ids_per_registry", int)


@pytest.mark.parametrize(
    "value, kind, named",
    [
        ("10", int, "retries must be of type int; got '10'"),
        (True, int, "retries must be of type int; got True"),
        (1.5, int, "retries must be of type int; got 1.5"),
        ([], dict, "retries must be of type dict; got []"),
        (None, int, "retries must be of type int; got None"),
        (3, (str, type(None)), "retries must be of type str or null; got 3"),
    ],
)
def test_wrong_type_names_the_parameter_and_the_value(
    value: Any, kind: Any, named: str
) -> None:
    """A bool is not an int, a float is not an int, null is refused without default."""
    with pytest.raises(ParameterError) as caught:
        take({"retries": value}, "retries", kind)
    assert str(caught.value) == named


def test_int_is_accepted_as_float_and_converted() -> None:
    """``10`` in a yaml where seconds are expected is 10.0 (never a bool)."""
    value = take({"timeout": 10}, "timeout", float)
    assert value == 10.0 and isinstance(value, float)
    with pytest.raises(
        ParameterError, match="timeout must be of type float; got False"
    ):
        take({"timeout": False}, "timeout", float)


def test_default_replaces_absent_and_null_but_not_a_wrong_value() -> None:
    """With a default, absent and null give it; a wrong value is still refused."""
    assert take({}, "publish_mech_id", int, 0) == 0
    assert take({"publish_mech_id": None}, "publish_mech_id", int, 0) == 0
    assert take({"publish_mech_id": 7}, "publish_mech_id", int, 0) == 7
    with pytest.raises(ParameterError, match="publish_mech_id"):
        take({"publish_mech_id": "7"}, "publish_mech_id", int, 0)


def test_optional_string_accepts_null_but_must_be_present() -> None:
    """``state_dir: null`` is a choice; a missing ``state_dir`` is a mistake."""
    assert take_optional_str({"state_dir": None}, "state_dir") is None
    assert take_optional_str({"state_dir": "/data"}, "state_dir") == "/data"
    with pytest.raises(ParameterError, match="state_dir is not set"):
        take_optional_str({}, "state_dir")


@pytest.mark.parametrize("value", [0, -1, 0.0, -0.5])
def test_positive_refuses_zero_and_negative(value: Any) -> None:
    """Zero and below are refused, naming the parameter and the value."""
    kind = float if isinstance(value, float) else int
    with pytest.raises(
        ParameterError, match=f"fetch_concurrency must be a positive .*{value}"
    ):
        take_positive({"fetch_concurrency": value}, "fetch_concurrency", kind)


def test_positive_accepts_and_converts() -> None:
    """A positive int where a float is expected comes back as a float."""
    assert take_positive({"t": 2}, "t", float) == 2.0
    assert take_positive({"n": 3}, "n", int) == 3


def test_require() -> None:
    """``require`` raises only when the condition fails, with the given sentence."""
    require(True, "never raised")
    with pytest.raises(ParameterError, match="^registries is empty$"):
        require(False, "registries is empty")
