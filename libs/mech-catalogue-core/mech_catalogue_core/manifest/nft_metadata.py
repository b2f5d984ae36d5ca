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

"""Validate registry NFT metadata: the document an Olas registry's ``tokenURI`` points to.

Its fields are ``name``, ``description``, ``code_uri`` (``ipfs://<CID>`` of the package
code), ``image`` and ``attributes``; it has no ``tools`` or ``toolMetadata``, so it is not
a v1 manifest and :func:`.validation.validate_manifest` would only say that ``tools`` is
missing. What it carries for the catalogue is the tool metadata held as JSON in its
``description`` (docs/manifest-spec.md section 3): :func:`validate_nft_metadata` checks
its own fields against :data:`NFT_METADATA_SCHEMA` and each described tool object against
the v1 schema's tool definition, at pointers inside ``/description``.
"""

from typing import Any, Dict, List, Tuple

from jsonschema.validators import Draft202012Validator
from mech_catalogue_core.manifest.parsing import (
    read_description_json,
)
from mech_catalogue_core.manifest.validation import (
    describe_error,
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
    Limits,
)

#: The fields of the ERC-721 metadata the Olas registries' ``tokenURI`` returns.
NFT_METADATA_SCHEMA: Dict[str, Any] = {
    "type": "object",
    "required": ["name", "description"],
    "properties": {
        "name": {"type": "string"},
        "description": {"type": "string"},
        "code_uri": {"type": "string", "pattern": "^ipfs://[A-Za-z0-9]+/?$"},
        "image": {"type": "string"},
        "attributes": {"type": "array", "items": {"type": "object"}},
    },
}
_NFT_ONLY_KEYS = ("code_uri", "attributes")


def is_nft_metadata(document: Any) -> bool:
    """Tell registry NFT metadata from a manifest.

    :param document: a decoded JSON value.
    :return: True for an object without ``tools`` and ``toolMetadata`` that has
        ``code_uri`` or ``attributes`` (fields only NFT metadata has).
    """
    return (
        isinstance(document, dict)
        and "tools" not in document
        and "toolMetadata" not in document
        and any(key in document for key in _NFT_ONLY_KEYS)
    )


def validate_nft_metadata(
    document: Dict[str, Any], limits: Limits = DEFAULT_LIMITS
) -> Tuple[P.Problem, ...]:
    """Check NFT metadata's fields and the tool objects its description holds.

    :param document: decoded NFT metadata (:func:`is_nft_metadata`).
    :param limits: caps for reading the description's JSON.
    :return: SCHEMA_VIOLATION errors, one per JSON Pointer: its own fields first (a
        ``code_uri`` must be ``ipfs://<CID>``), then each described tool's, with
        pointers inside ``/description`` (``/description/tools/0/kwargs/1``). None
        about a missing ``tools``: NFT metadata has none.
    """
    found: List[P.Problem] = []
    for err in Draft202012Validator(NFT_METADATA_SCHEMA).iter_errors(document):
        path, reason, _ = describe_error(err)
        if err.validator == "pattern":
            reason = "should be ipfs://CID of the package's code directory"
        found.append(
            P.error(P.SCHEMA_VIOLATION, f"Field {path or '(document)'} {reason}.", path)
        )
    described, _ = read_description_json(document.get("description"), limits)
    if described is None:
        return tuple(found)
    pointers = [where for where, _ in described.tools]
    virtual = {"tools": [tool for _, tool in described.tools]}
    return tuple(found) + relocated_tool_problems(validate_manifest(virtual), pointers)


def relocated_tool_problems(
    problems: Tuple[P.Problem, ...], pointers: List[str], keep_others: bool = False
) -> Tuple[P.Problem, ...]:
    """Move schema problems of a virtual manifest's ``/tools/i`` to where tool ``i`` sits.

    Tools read from elsewhere than ``tools`` (a description's JSON, a whole document
    that is one tool) are checked as the ``tools`` of a virtual manifest; their problems
    must point into the real document.

    :param problems: :func:`.validation.validate_manifest` problems of the virtual one.
    :param pointers: the real JSON Pointer of each virtual tool, in order (``""``: the
        document itself).
    :param keep_others: keep problems outside ``/tools/i`` (the virtual document's own
        fields, when they are the real document's); else they are left out.
    :return: the problems, paths and messages rewritten.
    """
    found: List[P.Problem] = []
    for problem in problems:
        index, _, rest = problem.path[len("/tools/") :].partition("/")
        if not problem.path.startswith("/tools/") or not index.isdigit():
            if keep_others and not problem.path.startswith("/tools"):
                found.append(problem)
            continue
        path = pointers[int(index)] + ("/" + rest if rest else "")
        message = problem.message.replace(problem.path, path or "(document)", 1)
        found.append(P.error(problem.code, message, path))
    return tuple(found)
