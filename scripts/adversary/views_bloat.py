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

"""Attack: many services, each with its own near-cap manifest of long distinct tool names.

A service's manifest of ``{"name", "description", "tools": [1,000 names of 128
characters]}`` is 131 KB, parses with no problem, and adds 1,000 distinct names to
``mech_tools`` (no marketplace facts needed: ``mechs_info`` needs them, ``mech_tools`` does
not). The views document then grows by about 131 KB per service, and it crosses
consensus in ``ShareViewsRound`` chunks of ``VIEWS_CHUNK_CHARS`` (12,288) characters, one
round each (at least one 1 s Tendermint block), whenever the views change. While the
chunks accumulate, the database holds them next to the previous views, and the
framework's app hash re-serialises the whole database (``AbciAppDB.hash``: ``json.dumps``)
at every round transition: per period O(S / 12,288) rounds x O(S) bytes.

Run: ``PYTHONPATH=$PWD nice -n 10 .venv/bin/python -m scripts.adversary.views_bloat 10 50 100``
(in-process, the skill's own parser, catalogue, views and the framework's ``AbciAppDB``;
no devnet). Per N attacking services (plus 10 honest mechs of 10 tools) it prints: the
bytes the attacker pins, parse and catalogue seconds, the views document size and chunk
rounds, the seconds to build the views document and the HTTP view (``/mechs`` body
size), the app-hash cost at the start and at the end of the chunk loop, and that cost
summed over the loop (measured every ``--step`` rounds and interpolated: it grows
linearly with the chunks held), the RSS.
"""

import argparse
import json
import math
import resource
import time
from typing import Dict, List

from mech_catalogue_core.catalogue.views import (
    views_chunks,
    views_document,
    views_from_document,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
)

from packages.mech_catalogue.skills.tool_metadata_abci.payloads import (
    VIEWS_CHUNK_CHARS,
)
from packages.valory.skills.abstract_round_abci.base import AbciAppDB

from scripts.bench_catalogue import agreed, get, parsed_mechs, served_view
from scripts.bench_manifest import ten_tool_manifest

NAME_CHARS = 128
TOOLS = 1000


def attack_manifest(index: int) -> bytes:
    """A near-cap manifest: 1,000 distinct 128-character tool names, nothing else.

    :param index: makes the names distinct from every other service's.
    :return: the manifest bytes (about 131 KB).
    """
    names = [f"a{index}-{t}-".ljust(NAME_CHARS, "x") for t in range(TOOLS)]
    return json.dumps(
        {"name": f"attacker {index}", "description": "d", "tools": names},
        separators=(",", ":"),
    ).encode()


def hash_seconds(db: AbciAppDB, repeat: int = 2) -> float:
    """Time the framework's app hash of ``db`` (best of ``repeat``).

    :param db: the database.
    :param repeat: tries.
    :return: seconds.
    """
    best = math.inf
    for _ in range(repeat):
        began = time.perf_counter()
        db.hash()
        best = min(best, time.perf_counter() - began)
    return best


def share_views_cost(document: str, step: int) -> Dict[str, float]:
    """Replay the chunk loop's database writes and time the app hash along the way.

    The previous views (same size: churn re-shares everything) sit in ``mechs_info`` /
    ``mech_tools``; each round adds one ``views_chunk_<i>`` key and keeps one value per
    key, as ``ShareViewsRound.end_block`` does.

    :param document: the views document.
    :param step: time the hash every ``step`` rounds.
    :return: rounds, the hash seconds first / last, and summed over the loop.
    """
    mechs_info, mech_tools = views_from_document(document)
    db = AbciAppDB(
        setup_data={
            "mechs_info": [mechs_info],
            "mech_tools": [mech_tools],
            "views_received_count": [0],
        }
    )
    chunks = views_chunks(document, VIEWS_CHUNK_CHARS)
    samples: List[float] = []
    for index, chunk in enumerate(chunks):
        db.update(views_received_count=index + 1, **{f"views_chunk_{index}": chunk})
        db.cleanup_current_histories(1)
        if index % step == 0 or index == len(chunks) - 1:
            samples.append(hash_seconds(db))
    mean = sum(samples) / len(samples)
    return {
        "rounds": len(chunks),
        "hash_first_s": samples[0],
        "hash_last_s": samples[-1],
        "hash_summed_s": mean * len(chunks),
    }


def run(attackers: int, step: int) -> Dict[str, object]:
    """Measure one N.

    :param attackers: attacking services.
    :param step: hash sampling step (rounds).
    :return: the figures.
    """
    manifests = [ten_tool_manifest(i) for i in range(10)] + [
        attack_manifest(i) for i in range(attackers)
    ]
    began = time.process_time()
    mechs = parsed_mechs(manifests)
    parse_s = time.process_time() - began
    began = time.process_time()
    catalogue = Catalogue.build(mechs)
    published = agreed(catalogue)
    digest_s = time.process_time() - began
    began = time.process_time()
    document = views_document(catalogue)
    views_s = time.process_time() - began
    began = time.process_time()
    view = served_view(published)
    http_view_s = time.process_time() - began
    mechs_body = len(get(view, "/mechs", 50).body)
    cost = share_views_cost(document, step)
    return {
        "attackers": attackers,
        "pinned_bytes": sum(len(m) for m in manifests[10:]),
        "tools": len(catalogue.tools()),
        "parse_s": round(parse_s, 2),
        "build_and_digest_s": round(digest_s, 2),
        "views_bytes": len(document),
        "views_build_s": round(views_s, 3),
        "http_view_build_s": round(http_view_s, 2),
        "mechs_body_bytes": mechs_body,
        "share_views_rounds": cost["rounds"],
        "share_views_min_s_at_1s_blocks": cost["rounds"],
        "app_hash_first_s": round(cost["hash_first_s"], 4),
        "app_hash_last_s": round(cost["hash_last_s"], 4),
        "app_hash_summed_s": round(cost["hash_summed_s"], 1),
        "rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    """Run the attack for each N given."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("attackers", nargs="*", type=int, default=[10, 50, 100])
    parser.add_argument("--step", type=int, default=25)
    args = parser.parse_args()
    for attackers in args.attackers:
        print(json.dumps(run(attackers, args.step)), flush=True)


if __name__ == "__main__":
    main()
