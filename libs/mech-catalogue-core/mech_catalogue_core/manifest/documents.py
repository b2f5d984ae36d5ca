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

"""One notion of a readable manifest: the parser's, for every command.

The parser (:mod:`.parsing`) reads four kinds of document (docs/manifest-spec.md
sections 3 and 8): a manifest with ``tools``/``toolMetadata``; registry NFT metadata
(``code_uri``/``attributes``, tools as JSON in its ``description``); any other document
without ``tools`` whose ``description`` holds tool objects as JSON; and a single tool
object ``{name, kwargs | arguments}`` read as a one-tool manifest. :func:`document_kind`
tells them apart with the parser's own tests, and :func:`validate_document` checks each
against what it is (the v1 schema's tool definition for the tools it holds), so
``validate`` accepts what ``show`` and ``export`` read and rejects what they reject.
:func:`check_document` is what those commands share: parse, schema check, quality.
"""

from dataclasses import dataclass
from typing import Any, Optional, Tuple

from mech_catalogue_core.manifest.nft_metadata import (
    is_nft_metadata,
    relocated_tool_problems,
    validate_nft_metadata,
)
from mech_catalogue_core.manifest.parsing import (
    is_single_tool,
    parse_document,
    read_description_json,
)
from mech_catalogue_core.manifest.validation import (
    quality_problems,
    unreported,
    validate_manifest,
)
from mech_catalogue_core.model import problems as P
from mech_catalogue_core.model.catalogue import (
    Manifest,
)
from mech_catalogue_core.model.limits import (
    DEFAULT_LIMITS,
    Limits,
)
from mech_catalogue_core.model.vocabulary import (
    DocumentKind,
)


def document_kind(document: Any, limits: Limits = DEFAULT_LIMITS) -> DocumentKind:
    """Tell which kind of document the parser reads ``document`` as.

    :param document: a decoded JSON value.
    :param limits: caps for reading the description's JSON.
    :return: ``single_tool`` for ``{name, kwargs | arguments}`` without ``tools`` and
        ``toolMetadata``; else ``nft_metadata`` for :func:`.nft_metadata.is_nft_metadata`;
        else ``described_tools`` when, without ``tools`` and ``toolMetadata``, its
        ``description`` holds tool objects as JSON; else ``manifest`` (the v1 schema's
        shape, or a document no reader reads).
    """
    if not isinstance(document, dict):
        return DocumentKind.MANIFEST
    if is_single_tool(document):
        return DocumentKind.SINGLE_TOOL
    if is_nft_metadata(document):
        return DocumentKind.NFT_METADATA
    if "tools" in document or "toolMetadata" in document:
        return DocumentKind.MANIFEST
    described, _ = read_description_json(document.get("description"), limits)
    return DocumentKind.MANIFEST if described is None else DocumentKind.DESCRIBED_TOOLS


def validate_document(
    document: Any, limits: Limits = DEFAULT_LIMITS
) -> Tuple[DocumentKind, Tuple[P.Problem, ...]]:
    """Check a decoded document against the specification, as the kind it is read as.

    :param document: a decoded JSON value.
    :param limits: caps for reading the description's JSON.
    :return: (its :func:`document_kind`, ``schema_violation`` errors one per JSON
        Pointer): a manifest against ``manifest-v1.schema.json``; NFT metadata by
        :func:`.nft_metadata.validate_nft_metadata`; described tools: the document's
        other fields as a manifest's, each described tool object as a v1 tool, at
        pointers inside ``/description``; a single tool object as a v1 tool, at its own
        pointers. Nothing for a value that is not an object (the parser reports it).
    """
    kind = document_kind(document, limits)
    if not isinstance(document, dict):
        return kind, ()
    if kind == DocumentKind.NFT_METADATA:
        return kind, validate_nft_metadata(document, limits)
    if kind == DocumentKind.SINGLE_TOOL:
        return kind, relocated_tool_problems(
            validate_manifest({"tools": [document]}), [""]
        )
    if kind == DocumentKind.DESCRIBED_TOOLS:
        described, _ = read_description_json(document.get("description"), limits)
        assert described is not None  # nosec - document_kind read it
        pointers = [where for where, _ in described.tools]
        virtual = {
            **document,
            "description": described.text,
            "tools": [tool for _, tool in described.tools],
        }
        return kind, relocated_tool_problems(
            validate_manifest(virtual), pointers, keep_others=True
        )
    return kind, validate_manifest(document)


@dataclass(frozen=True)
class CheckedDocument:
    """What ``validate``, ``show`` and ``export`` read from one decoded document.

    :param kind: the kind of document (:func:`document_kind`).
    :param manifest: the parsed manifest, None when the parser rejected the document.
    :param problems: the parser's problems, then the schema problems at pointers the
        parser did not report (:func:`.validation.unreported`), then the quality
        warnings (:func:`.validation.quality_problems`).
    """

    kind: DocumentKind
    manifest: Optional[Manifest]
    problems: Tuple[P.Problem, ...]


def check_document(document: Any, limits: Limits = DEFAULT_LIMITS) -> CheckedDocument:
    """Parse and check a decoded document, as every command reads it.

    NFT metadata keeps its tools in its ``description`` by design, so the parser's
    ``description_json_parsed`` warning about ``/description`` is left out for it; for
    no kind does that note hide a schema problem inside ``/description``.

    :param document: a decoded JSON value (:func:`.validation.decode_json`).
    :param limits: caps.
    :return: the kind, the manifest (or None) and every problem.
    """
    parsed = parse_document(document, limits)
    kind, schema = validate_document(document, limits)
    problems = tuple(parsed.problems)
    # the note that /description was read as JSON reports no fault inside it
    faults = tuple(p for p in problems if not _description_read(p))
    if kind == DocumentKind.NFT_METADATA:
        problems = faults
    quality = () if parsed.manifest is None else quality_problems(parsed.manifest)
    return CheckedDocument(
        kind, parsed.manifest, problems + unreported(faults, schema) + quality
    )


def _description_read(problem: P.Problem) -> bool:
    return (problem.code, problem.path) == (P.DESCRIPTION_JSON_PARSED, "/description")
