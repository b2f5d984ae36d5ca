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

"""``mech-catalogue cid``: the CIDs and digests of a file, digest or CID (docs/cli.md)."""

from pathlib import Path
from typing import Any, Dict, Optional

import click
from mech_catalogue_core.ipfs import cid as cids
from mech_catalogue_core.ipfs.unixfs import (
    CODEC_DAG_PB,
    MAX_FILE_SIZE,
    root_digest,
)
from mech_catalogue_core.manifest.validation import (
    decode_json,
)
from mech_catalogue_core.model.canonical import (
    CanonicalizationError,
    canonical_bytes,
)
from rich.console import Console

from ..output import CliFailure, Output
from ..sources import _names_a_path  # the rule `validate` applies to a missing file
from ..sources import FILE_NOT_FOUND, FILE_NOT_READABLE, read_file
from .options import (
    examples,
    json_option,
)

#: (label, CID version, raw leaves) of the ``ipfs add`` layouts ``cid FILE`` reports: kubo's
#: default (CIDv0), ``--cid-version=1`` (raw leaves implied), and CIDv1 with dag-pb leaves,
#: the one whose digest the registries' ``f01701220`` prefix assumes.
KUBO_LAYOUTS = (
    ("kubo-default-v0", 0, False),
    ("kubo-cid-version-1", 1, True),
    ("kubo-cid-version-1-dag-pb-leaves", 1, False),
)


def _cid_of_file(path: Path) -> Dict[str, Any]:
    data = read_file(path, MAX_FILE_SIZE)
    layouts = {}
    for label, version, raw_leaves in KUBO_LAYOUTS:
        codec, digest = root_digest(data, raw_leaves=raw_leaves, cid_version=version)
        codec_name = cids.DAG_PB if codec == CODEC_DAG_PB else cids.RAW
        layouts[label] = {
            "cid": cids.digest_to_cid(digest, codec_name, version),
            "codec": codec_name,
            "digest": "0x" + digest.hex(),
            "command": "ipfs add"
            + ("" if version == 0 else " --cid-version=1")
            + ("" if raw_leaves or version == 0 else " --raw-leaves=false"),
        }
    result = {"kind": "file", "file": str(path), "size": len(data), "layouts": layouts}
    published = _published_form(data)
    if published is not None:
        result["publish"] = published
    return result


def _published_form(data: bytes) -> Optional[Dict[str, Any]]:
    """Say what `publish --manifest` would upload when it is not these very bytes.

    :param data: the file's bytes.
    :return: None when the file is not JSON or already canonical; else the canonical
        form's dag-pb CID and digest, with a note.
    """
    decoded = decode_json(data)
    if not decoded.ok:
        return None
    try:
        canonical = canonical_bytes(decoded.value)
    except CanonicalizationError:
        return None
    if canonical == data:
        return None
    codec, digest = root_digest(canonical, raw_leaves=False, cid_version=1)
    assert codec == CODEC_DAG_PB  # nosec B101: dag-pb leaves were asked for
    return {
        "note": "this file is not in canonical form (RFC 8785); `publish --manifest` "
        "uploads the canonical bytes, whose digest is this one (`generate` writes them)",
        "cid": cids.digest_to_cid(digest, cids.DAG_PB),
        "digest": "0x" + digest.hex(),
    }


def _cid_of_digest(value: str) -> Dict[str, Any]:
    digest = cids.normalise_digest(value)
    return {
        "kind": "digest",
        "digest": digest,
        "dag_pb_v1": cids.digest_to_cid(digest, cids.DAG_PB),
        "dag_pb_v1_base16": cids.digest_to_cid(digest, cids.DAG_PB, base="base16"),
        "dag_pb_v0": cids.digest_to_cid(digest, cids.DAG_PB, version=0),
        "raw_v1": cids.digest_to_cid(digest, cids.RAW),
    }


def _cid_of_cid(value: str) -> Dict[str, Any]:
    codec, digest = cids.cid_to_digest(value)
    result: Dict[str, Any] = {
        "kind": "cid",
        "cid": cids.strip_cid(value),
        "codec": codec,
        "digest": digest,
        "v1": cids.to_v1(value),
    }
    if codec == cids.DAG_PB:
        result["v0"] = cids.to_v0(value)
    return result


@click.command(
    name="cid",
    help="Convert a bytes32 digest <-> CID, or compute a FILE's CIDs as kubo's "
    "`ipfs add` would.\n\nVALUE is an existing file, a 0x + 64 hex digest, or a CID in "
    "any textual form: v0 (Qm...), v1 in base32 (either case), base58btc, base16 or "
    "base36, ipfs://<cid> or /ipfs/<cid>. A raw-codec CID is reported as raw.",
    epilog=examples(
        "cid my-mech/manifest.json",
        "cid 0x0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
        "cid bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    ),
)
@click.argument("value")
@json_option
def cid_command(value: str, out: Output) -> None:
    """Print the conversions of VALUE (file, digest or CID); bad input fails with exit 1."""
    path = Path(value)
    try:
        if path.is_file():
            result = _cid_of_file(path)
        elif path.is_dir():
            raise CliFailure(
                FILE_NOT_READABLE,
                f"{value} is a folder; pass a file in it, a 0x bytes32 digest or a CID.",
            )
        elif (
            value.lower().startswith("0x")
            or len(value) == 64
            and all(c in "0123456789abcdefABCDEF" for c in value)
        ):
            result = _cid_of_digest(value)
        else:
            result = _cid_of_cid(value)
    except cids.CidError as exc:
        if _names_a_path(value):  # meant as a file, like `validate`'s sources
            raise CliFailure(
                FILE_NOT_FOUND,
                f"No such file: {value} (looked from {Path.cwd()}). Pass an existing "
                "file, a 0x bytes32 digest, or a CID.",
            ) from exc
        raise CliFailure(exc.problem.code, exc.problem.message, (exc.problem,)) from exc

    def render(console: Console) -> None:
        for key, item in result.items():
            if key == "publish":
                console.print(
                    f"publish uploads {item['cid']} (digest {item['digest']}): {item['note']}",
                    markup=False,
                )
            elif isinstance(item, dict):
                for layout in item.values():
                    console.print(
                        f"{layout['command']}: {layout['cid']} (digest {layout['digest']})",
                        markup=False,
                    )
            else:
                console.print(f"{key}: {item}", markup=False)

    out.emit(result, render)
