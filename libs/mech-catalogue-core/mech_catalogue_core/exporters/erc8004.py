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

"""ERC-8004 agent registration file for a mech (EIP-8004 "Trustless Agents", registration-v1).

Shape (eips.ethereum.org/EIPS/eip-8004, "Agent URI and registration file"): ``type`` =
:data:`REGISTRATION_TYPE`, ``name``, ``description``, ``image``, ``services`` (each
``{name, endpoint, version?}``: e.g. ``MCP``, ``A2A``, ``web``, custom names allowed),
``x402Support``, ``active``, ``registrations`` (each ``{agentId, agentRegistry}`` with
``agentRegistry`` in CAIP-10 form ``eip155:<chainId>:<identity registry address>``) and
``supportedTrust`` (``reputation``, ``crypto-economic``, ``tee-attestation``).
:data:`REGISTRATION_SCHEMA` is this project's JSON Schema of that shape, used to check
every file before it is returned.

Beyond the shape: ``image`` is an absolute ``https``, ``ipfs`` or ``data`` URI or empty
(a manifest's ``"image": "tbd"`` is never copied; a warning says it was left out); no
endpoint may hold a ``{...}`` template (``{`` and ``}`` are not legal in a URI, RFC 3986):
:func:`expand_templates` substitutes a known ``{agentId}``, anything left is refused. The
manifest's service is ``ipfs://<CIDv1>`` whatever CID form the manifest was read under.
A mech whose ref has chain id 0 (:data:`UNKNOWN_REF`, a manifest read from a file) gets
no invented name or chain: registrations then need ``chain_id``.
"""

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence
from urllib.parse import unquote

from jsonschema import Draft202012Validator
from mech_catalogue_core.ipfs.cid import (
    CidError,
    to_v1,
)
from mech_catalogue_core.model.catalogue import (
    Mech,
)
from mech_catalogue_core.model.quoted_text import quoted_for_model
from mech_catalogue_core.model.tool import MechRef
from mech_catalogue_core.model.untrusted_text import (
    instruction_phrases,
    label_for_model,
    prose_for_model,
    strip_invisible,
)

REGISTRATION_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"
TRUST_MODELS = ("reputation", "crypto-economic", "tee-attestation")
MANIFEST_SERVICE = "olas-mech-manifest"

_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_TEMPLATE = re.compile(r"\{[^{}]*\}|[{}]")
_ABSOLUTE_IMAGE = re.compile(
    r"^(https://[^\s]+|ipfs://[^\s]+|data:image/[^\s]+)$", re.IGNORECASE
)
#: characters of a URI written into a registration or card at most: RFC 9110 section
#: 4.1 asks every sender and recipient to support URIs of at least 8,000 octets
MAX_URI_CHARS = 8000
#: The ref of a mech known only by its manifest (nothing on chain was given).
UNKNOWN_REF = MechRef(0, "", "", 0)
#: Templates :func:`expand_templates` fills, with the value each takes.
AGENT_ID_TEMPLATES = ("{agentId}", "{agent_id}", "{agentID}")
CAIP10_EIP155 = r"^eip155:[0-9]{1,32}:0x[0-9a-fA-F]{40}$"

REGISTRATION_SCHEMA: Dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["type", "name", "description", "image", "services"],
    "properties": {
        "type": {"const": REGISTRATION_TYPE},
        "name": {"type": "string", "minLength": 1},
        "description": {"type": "string"},
        "image": {"type": "string"},
        "services": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "endpoint"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "endpoint": {"type": "string", "minLength": 1},
                    "version": {"type": "string"},
                },
            },
        },
        "x402Support": {"type": "boolean"},
        "active": {"type": "boolean"},
        "registrations": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["agentId", "agentRegistry"],
                "properties": {
                    "agentId": {"type": "integer", "minimum": 0},
                    "agentRegistry": {"type": "string", "pattern": CAIP10_EIP155},
                },
                "additionalProperties": False,
            },
        },
        "supportedTrust": {"type": "array", "items": {"type": "string"}},
    },
}


class RegistrationError(ValueError):
    """Raised when the inputs cannot make a valid registration file (message says which)."""


@dataclass(frozen=True)
class Service:
    """One advertised endpoint.

    :param name: protocol name (``MCP``, ``A2A``, ``web``...).
    :param endpoint: URL or identifier.
    :param version: protocol version ("" to omit).
    """

    name: str
    endpoint: str
    version: str = ""

    def to_dict(self) -> Dict[str, str]:
        """Return ``{name, endpoint[, version]}``.

        :return: ``{name, endpoint[, version]}``.
        """
        data = {"name": self.name, "endpoint": self.endpoint}
        if self.version:
            data["version"] = self.version
        return data


def templates_in(text: str) -> List[str]:
    """The ``{...}`` templates (or stray braces) left in a URL.

    :param text: a URL.
    :return: each template found, in order.
    """
    return _TEMPLATE.findall(text)


def expand_templates(text: str, agent_id: Optional[int]) -> str:
    """Substitute ``{agentId}`` (and its spellings in :data:`AGENT_ID_TEMPLATES`).

    :param text: a URL that may hold templates.
    :param agent_id: the ERC-8004 agentId, None when unknown.
    :return: the URL with known templates filled.
    :raises RegistrationError: when a template is left (unknown agent id, or another
        template); the message names it and the option that fills it.
    """
    if agent_id is not None:
        for template in AGENT_ID_TEMPLATES:
            text = text.replace(template, str(agent_id))
    left = templates_in(text)
    if left:
        hint = (
            "give --agent-id to fill {agentId}"
            if any(t in AGENT_ID_TEMPLATES for t in left)
            else "only {agentId} can be filled"
        )
        raise RegistrationError(
            f"the URL {text[:120]!r} holds the template(s) {left}; {hint}, or give a URL "
            "without braces ({ and } are not legal in a URI)"
        )
    return text


def uri_refusal(uri: str) -> str:
    """Why a URI may not be written into a file agents read, "" when it may.

    A URI is copied as it is (cleaning it would point elsewhere), so one holding a
    character of :data:`.untrusted_text.INVISIBLE_RANGES` (text hidden from the person
    checking it) or longer than :data:`MAX_URI_CHARS` is not written at all (adv29w).

    :param uri: the URI (an image, an endpoint, a provider or documentation URL).
    :return: the reason, as words after the URI ("holds 3 invisible characters"), or "".
    """
    hidden = len(uri) - len(strip_invisible(uri))
    if hidden or "\n" in uri or "\t" in uri:
        return f"holds {max(hidden, 1):,} invisible or control character(s)"
    if len(uri) > MAX_URI_CHARS:
        return f"is {len(uri):,} characters long, over {MAX_URI_CHARS:,}"
    return ""


def image_refusal(image: Any) -> str:
    """Why an image may not be written into a registration, "" when it may.

    :param image: a candidate (e.g. the manifest's ``image``, or ``--image``).
    :return: the reason, as words after the image: not an absolute https, ipfs or
        ``data:image/`` URI; :func:`uri_refusal`'s; or words that read like
        instructions to a model (a ``data:`` URI's text); "" when it may.
    """
    if not isinstance(image, str):
        return "is not an absolute https, ipfs or data:image URI"
    refusal = uri_refusal(image)
    if refusal:
        return refusal
    if not _ABSOLUTE_IMAGE.match(image):
        return "is not an absolute https, ipfs or data:image URI"
    if instruction_phrases(unquote(image)):
        return "reads like instructions to a model"
    return ""


def absolute_image(image: Any) -> str:
    """The image URI when :func:`image_refusal` finds nothing against it, else "".

    :param image: a candidate (e.g. the manifest's ``image``).
    :return: the URI or "".
    """
    return image if not image_refusal(image) else ""


def _image_written(candidate: Any, warnings: Optional[List[str]]) -> str:
    """The image a registration holds: ``candidate`` unless refused, said in warnings."""
    refusal = image_refusal(candidate) if candidate else ""
    if refusal and warnings is not None:
        warnings.append(
            f"image {quoted_for_model(str(candidate), 80)} {refusal}; "
            "it was left out (give --image)"
        )
    return "" if refusal else str(candidate)


def checked_uri(uri: str, what: str) -> str:
    """A URI the caller gives, when :func:`uri_refusal` finds nothing against it.

    :param uri: the URI (``--url``, a service endpoint, a provider URL...).
    :param what: what it is, for the error ("the endpoint of service 'MCP'").
    :return: ``uri``.
    :raises RegistrationError: naming ``what`` and the reason (the URI quoted cleaned).
    """
    refusal = uri_refusal(uri)
    if refusal:
        raise RegistrationError(
            f"{what} {quoted_for_model(uri, 80)} {refusal}; give it without them"
        )
    return uri


def caip10(chain_id: int, address: str) -> str:
    """CAIP-10 account id of a contract on an EVM chain.

    :param chain_id: EIP-155 chain id (positive).
    :param address: 0x + 40 hex.
    :return: ``eip155:<chainId>:<address>`` (EIP-55 checksummed when eth_utils is present).
    :raises RegistrationError: on a bad chain id or address.
    """
    if not isinstance(chain_id, int) or isinstance(chain_id, bool) or chain_id <= 0:
        raise RegistrationError(
            f"chain id {chain_id!r} is not a positive EIP-155 chain id"
        )
    if not isinstance(address, str) or not _ADDRESS.match(address):
        raise RegistrationError(
            f"registry address {address!r} is not 0x followed by 40 hex digits"
        )
    try:
        from eth_utils import (  # pylint: disable=import-outside-toplevel
            to_checksum_address,
        )

        address = to_checksum_address(address)
    except (
        ImportError
    ):  # pragma: no cover - eth_utils ships with open-aea-ledger-ethereum
        pass
    return f"eip155:{chain_id}:{address}"


def to_registration(  # pylint: disable=too-many-arguments
    mech: Mech,
    *,
    agent_id: Optional[int] = None,
    identity_registry: Optional[str] = None,
    chain_id: Optional[int] = None,
    services: Sequence[Service] = (),
    image: str = "",
    supported_trust: Sequence[str] = ("reputation",),
    active: bool = True,
    x402_support: bool = False,
    warnings: Optional[List[str]] = None,
) -> Dict[str, Any]:
    """ERC-8004 registration file for a mech.

    :param mech: the mech (name, description, CID of its manifest).
    :param agent_id: its ERC-8004 agentId, when already registered (else no registrations).
    :param identity_registry: the IdentityRegistry address (with agent_id).
    :param chain_id: the registry's chain (default: the mech's chain).
    :param services: endpoints to advertise; the manifest CID is added as
        ``olas-mech-manifest`` (``ipfs://<cid>``) when known.
    :param image: image URL (the manifest's ``image`` when empty).
    :param supported_trust: trust models, a subset of :data:`TRUST_MODELS`.
    :param active: whether the agent is live.
    :param x402_support: whether it accepts x402 payments.
    :param warnings: sentences about what was left out are appended here (e.g. an image
        that is not an absolute URI).
    :return: the registration JSON, valid against :data:`REGISTRATION_SCHEMA` (the
        mech's name and description cleaned and capped, :mod:`..model.untrusted_text`).
    :raises RegistrationError: on unknown trust models, a partial registration, a bad
        chain id / address, an endpoint holding a template, or a registration without a
        chain when the mech's ref is unknown.
    """
    unknown = [t for t in supported_trust if t not in TRUST_MODELS]
    if unknown:
        raise RegistrationError(
            f"unknown trust model(s) {unknown}; use {list(TRUST_MODELS)}"
        )
    if (agent_id is None) != (identity_registry is None):
        raise RegistrationError("give both agent_id and identity_registry, or neither")
    for service in services:
        checked_uri(service.endpoint, f"the endpoint of service {service.name!r}")
        if templates_in(service.endpoint):
            expand_templates(service.endpoint, None)  # raises, naming the template
    service_list: List[Dict[str, str]] = [s.to_dict() for s in services]
    if mech.cid:
        try:
            manifest_uri = f"ipfs://{to_v1(mech.cid)}"
        except CidError:
            manifest_uri = f"ipfs://{mech.cid}"
        service_list.append(Service(MANIFEST_SERVICE, manifest_uri).to_dict())
    known = mech.ref != UNKNOWN_REF
    chosen = _image_written(image or mech.extra.get("image", ""), warnings)
    registration: Dict[str, Any] = {
        "type": REGISTRATION_TYPE,
        "name": label_for_model(mech.name)
        or (f"Mech {mech.ref.mech_id}" if known else "Olas mech"),
        "description": prose_for_model(mech.description)
        or (f"Olas mech {mech.ref.key}." if known else "Olas mech tools."),
        "image": chosen,
        "services": service_list,
        "x402Support": x402_support,
        "active": active,
        "registrations": [],
        "supportedTrust": list(supported_trust),
    }
    if agent_id is not None and identity_registry is not None:
        if not isinstance(agent_id, int) or isinstance(agent_id, bool) or agent_id < 0:
            raise RegistrationError(
                f"agent id {agent_id!r} is not a non-negative integer"
            )
        registry_chain = chain_id if chain_id is not None else mech.ref.chain_id
        if not known and chain_id is None:
            raise RegistrationError(
                "the chain of the identity registry is unknown for a manifest read on its "
                "own; give chain_id (--chain-id)"
            )
        registration["registrations"].append(
            {
                "agentId": agent_id,
                "agentRegistry": caip10(registry_chain, identity_registry),
            }
        )
    problems = registration_problems(registration)
    if problems:
        raise RegistrationError("; ".join(problems))
    return registration


def registration_problems(document: Any) -> List[str]:
    """Return one sentence per schema violation.

    :param document: a registration file.
    :return: one sentence per schema violation.
    """
    validator = Draft202012Validator(REGISTRATION_SCHEMA)
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(root)'}: {error.message}"
        for error in validator.iter_errors(document)
    ]
