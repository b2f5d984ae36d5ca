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

"""The one reader of skill parameters (``models.params.args`` of a skill.yaml).

Both skills read their parameters with it: ``tool_metadata_abci`` (``models.py``) and
``manifest_publish_abci`` (``params.py``, the ``publish_*`` keys). It lives here, in
``tool_metadata_abci``, because ``manifest_publish_abci`` already depends on this skill
(its behaviours read the registry through this skill's Multicall2 reader), so importing
it from there adds no dependency and no cycle; the reverse would make the catalogue skill
depend on the publish skill.

Every failure is a :class:`ParameterError` whose message names the parameter, says what
was found and what is expected, so an operator can fix the configuration from the log.
"""

from typing import Any, Dict, Optional, Tuple, Type, Union

#: marks a parameter without default: absence is an error
REQUIRED: Any = object()
NoneType = type(None)

Kind = Union[Type[Any], Tuple[Type[Any], ...]]


class ParameterError(ValueError):
    """A skill parameter is wrong or missing; the message names it and says what to set."""


def require(condition: bool, message: str) -> None:
    """Raise a :class:`ParameterError` with ``message`` unless ``condition`` holds.

    :param condition: the check.
    :param message: the sentence naming the parameter and what is expected.
    :raises ParameterError: when the condition is false.
    """
    if not condition:
        raise ParameterError(message)


def _kind_name(kind: Kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(
        "null" if k is NoneType else getattr(k, "__name__", str(k)) for k in kinds
    )


def take(kwargs: Dict[str, Any], key: str, kind: Kind, default: Any = REQUIRED) -> Any:
    """Pop one parameter from the model's keyword arguments and check its type.

    An ``int`` is accepted (and converted) where a ``float`` is expected; a ``bool`` is
    never accepted as an ``int``. With a ``default``, an absent or null value takes it.

    :param kwargs: the params model's keyword arguments (``key`` is removed).
    :param key: the parameter name.
    :param kind: the expected type, or a tuple of types (``(str, type(None))`` for an
        optional string).
    :param default: the value when absent or null; :data:`REQUIRED` (the default) makes
        absence an error.
    :return: the value.
    :raises ParameterError: the parameter is absent without default, or of another type.
    """
    if key not in kwargs and default is REQUIRED:
        raise ParameterError(
            f"{key} is not set in models.params.args of the skill (nor in the agent or "
            f"service overrides); set it (type {_kind_name(kind)})"
        )
    value = kwargs.pop(key, default)
    if value is None and default is not REQUIRED:
        value = default
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if float in kinds and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    wrong_bool = isinstance(value, bool) and bool not in kinds
    if wrong_bool or not isinstance(value, kinds):
        raise ParameterError(f"{key} must be of type {_kind_name(kind)}; got {value!r}")
    return value


def take_positive(kwargs: Dict[str, Any], key: str, kind: Type[Any]) -> Any:
    """Pop a required positive ``int`` or ``float`` parameter.

    :param kwargs: the params model's keyword arguments (``key`` is removed).
    :param key: the parameter name.
    :param kind: ``int`` or ``float``.
    :return: the value (a float when ``kind`` is float); absent, of another type, or not
        > 0 raises :class:`ParameterError` (from :func:`take` and :func:`require`).
    """
    value = take(kwargs, key, kind)
    what = "integer" if kind is int else "number"
    require(value > 0, f"{key} must be a positive {what}; got {value}")
    return value


def take_optional_str(kwargs: Dict[str, Any], key: str) -> Optional[str]:
    """Pop a required parameter that is a string or null.

    :param kwargs: the params model's keyword arguments (``key`` is removed).
    :param key: the parameter name.
    :return: the string, or None; absent, or neither a string nor null, raises
        :class:`ParameterError` (from :func:`take`).
    """
    value = take(kwargs, key, (str, NoneType))
    return None if value is None else str(value)
