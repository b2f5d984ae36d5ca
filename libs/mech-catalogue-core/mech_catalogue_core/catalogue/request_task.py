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

"""What the requester service asks a mech each period: a task, from parameters or a file.

A task is a prompt, the typed arguments of the call, and either the tool's name or its
kind (``Tool.kind``: ``prediction``, ``chat``...; the vocabulary of
``model.tool.TOOL_KINDS``). It comes from the skill's ``requester_*`` parameters or,
when ``requester_task_file`` is set, from a YAML file (YAML as the framework's own
configuration, so JSON is read too; ``examples/requester_task.yaml``) of this shape
(:data:`TASK_SCHEMA`, JSON Schema 2020-12)::

    prompt: Will it rain in Lisbon tomorrow?   # required, 1..10,000 characters
    tool: prediction-online                    # exactly one of tool and kind
    # kind: prediction
    arguments:                                 # optional JSON object, no "prompt" key
      max_tokens: 120
      temperature: 0.25
    max_price:                                 # optional: the assets paid, each capped
      usdc: 2000000                            # smallest units (1e-6 USDC): 2 USDC
      olas: 500000000000000000                 # wei of OLAS: 0.5 OLAS

``max_price`` names the assets the requester may pay (``native``, ``olas``, ``usdc``:
:data:`~mech_catalogue_core.model.payment.ASSETS` without ``credits``) and the most one
request may cost in each, in the asset's smallest unit; an asset it does not name is not
paid. Without it the requester pays the native token only, uncapped (the mech's
``maxDeliveryRate``, as before token payments existed); docs/running.md, "Paying in
OLAS and USDC".

The file is read anew each period (an edit takes effect at the next one). Anything wrong
(unreadable, over :data:`MAX_TASK_FILE_BYTES`, not YAML, a field missing, unknown or of the
wrong type) raises :class:`TaskError` naming the file and the field: the requester then
sends no request that period. The arguments themselves are checked against the chosen
tool's input schema later, by :func:`.mech_request.mech_request`.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional

import yaml
from jsonschema import Draft202012Validator
from mech_catalogue_core.model.payment import ASSET_NATIVE, ASSET_OLAS, ASSET_USDC

#: the largest task file read (bytes): a prompt and a few arguments
MAX_TASK_FILE_BYTES = 64 * 1024

#: the longest prompt accepted (characters)
MAX_PROMPT_CHARS = 10_000

#: a tool kind: a lowercase word of at most 64 characters (as ``GET /tools?kind=``)
KIND_PATTERN = "^[a-z][a-z0-9_]{0,63}$"

#: the assets a task may cap and pay (mech-interact v0.32.3 pays these three kinds of
#: fixed-price mech; subscription credits are never bought by the requester)
PAYABLE_ASSETS = (ASSET_NATIVE, ASSET_OLAS, ASSET_USDC)

#: the shape of a task (file or parameters), JSON Schema 2020-12
TASK_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "minLength": 1, "maxLength": MAX_PROMPT_CHARS},
        "tool": {"type": "string", "minLength": 1, "maxLength": 256},
        "kind": {"type": "string", "pattern": KIND_PATTERN},
        "arguments": {
            "type": "object",
            "not": {"required": ["prompt"]},
        },
        "max_price": {
            "type": "object",
            "propertyNames": {"enum": list(PAYABLE_ASSETS)},
            "additionalProperties": {"type": "integer", "minimum": 0},
            "minProperties": 1,
        },
    },
    "required": ["prompt"],
    "additionalProperties": False,
}


class TaskError(ValueError):
    """The task cannot be used; the message names the source and the field."""


@dataclass(frozen=True)
class RequestTask:
    """One request to make: the tool (by name or kind), its prompt and typed arguments.

    :param prompt: the request's free text.
    :param tool_name: the tool's exact name ("" when chosen by ``kind``).
    :param kind: the tool kind ("" when chosen by ``tool_name``).
    :param arguments: the typed arguments (JSON values by argument name).
    :param max_price: asset (``native``, ``olas``, ``usdc``) -> the most one request may
        cost in it, smallest unit; None: the native token only, uncapped.
    """

    prompt: str
    tool_name: str = ""
    kind: str = ""
    arguments: Dict[str, Any] = field(default_factory=dict)
    max_price: Optional[Dict[str, int]] = None

    @property
    def wanted(self) -> str:
        """What is asked for, in words (``tool 'x'`` or ``tool kind 'y'``).

        :return: the words.
        """
        return (
            f"tool {self.tool_name!r}" if self.tool_name else f"tool kind {self.kind!r}"
        )


def _field_of(error: Any) -> str:
    """The field an error is about: its path, plus the missing or unknown key."""
    path = [str(part) for part in error.absolute_path]
    if error.validator == "required" and isinstance(error.instance, dict):
        path += [k for k in error.validator_value if k not in error.instance][:1]
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        path += sorted(str(k) for k in error.instance if k not in known)[:1]
    elif error.validator == "not":
        path.append("prompt")
    return "/".join(path) or "(top level)"


class _AliasRefused(yaml.YAMLError):
    """A YAML alias in a task file."""


class _NoAliasLoader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
    """PyYAML's safe loader without aliases: ``*ref`` chains expand exponentially."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        """Refuse an alias, else compose as the safe loader does.

        :param parent: the parent node.
        :param index: the index in it.
        :return: the node (an alias is refused by :func:`_no_alias`).
        """
        _no_alias(self.check_event(yaml.AliasEvent))
        return super().compose_node(parent, index)


def _no_alias(at_alias: bool) -> None:
    """Refuse a YAML alias.

    :param at_alias: whether the next event is an alias.
    :raises _AliasRefused: when it is.
    """
    if at_alias:
        raise _AliasRefused("aliases (*name) are not accepted in a task file")


def _message(error: Any) -> str:
    if error.validator == "not":
        return (
            "the prompt goes in 'prompt', not among the arguments (it would replace it)"
        )
    if error.validator == "pattern":
        return (
            f"{error.instance!r} is not a tool kind (a lowercase word, e.g. prediction)"
        )
    return str(error.message)


def task_from(document: Any, source: str) -> RequestTask:
    """Validate a task document and build the task.

    :param document: the parsed file (or the parameters as a mapping).
    :param source: where it came from, for messages (a path or "the requester_* parameters").
    :return: the task.
    :raises TaskError: naming ``source`` and every invalid field (``tool``/``kind``:
        exactly one must be set).
    """
    errors = sorted(
        Draft202012Validator(TASK_SCHEMA).iter_errors(document),
        key=lambda e: list(e.absolute_path),
    )
    if errors:
        detail = "; ".join(f"field {_field_of(e)!r}: {_message(e)}" for e in errors)
        raise TaskError(f"{source}: {detail}")
    tool_name, kind = document.get("tool", ""), document.get("kind", "")
    if bool(tool_name) == bool(kind):
        raise TaskError(
            f"{source}: fields 'tool' and 'kind': set exactly one (the tool's name, or "
            "a kind such as prediction to let the catalogue's offer rule choose)"
        )
    return RequestTask(
        prompt=document["prompt"],
        tool_name=tool_name,
        kind=kind,
        arguments=dict(document.get("arguments", {})),
        max_price=(
            None
            if document.get("max_price") is None
            else {str(k): int(v) for k, v in document["max_price"].items()}
        ),
    )


def task_from_bytes(raw: bytes, source: str) -> RequestTask:
    """Validate a task file's bytes (YAML or JSON).

    Reading the file is an adapter's (:func:`mech_catalogue_core.adapters.task_file.load_task`).

    :param raw: the file's bytes, at most :data:`MAX_TASK_FILE_BYTES` + 1 of them read.
    :param source: what to name in errors (``task file <path>``).
    :return: the task.
    :raises TaskError: when it is over :data:`MAX_TASK_FILE_BYTES`, is not YAML, or is
        not a valid task (:func:`task_from` names the field).
    """
    if len(raw) > MAX_TASK_FILE_BYTES:
        raise TaskError(
            f"{source}: larger than {MAX_TASK_FILE_BYTES} bytes; a task is a prompt and "
            "a few arguments"
        )
    try:
        document = yaml.load(raw.decode("utf-8"), Loader=_NoAliasLoader)  # nosec B506
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        where = getattr(error, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        reason = error if isinstance(error, _AliasRefused) else "not valid YAML or JSON"
        raise TaskError(f"{source}: {reason}{line}") from None
    return task_from(document, source)
