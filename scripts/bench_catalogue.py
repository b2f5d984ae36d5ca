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

"""What the catalogue benchmarks share: manifests parsed into mechs, the served view, a GET.

Used by ``scripts/bench_http.py`` (20,000-tool load test) and ``scripts/bench_exports.py``
(export cost per tool); both time the skill's own code: ``parse_manifest``,
``Mech.from_manifest``, ``Catalogue.build``, ``CatalogueView.build`` and ``route`` (what the
skill's HTTP handler calls).
"""

import time
from typing import Iterable, List, Optional

from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.http_api.request import (
    HttpResult,
)
from mech_catalogue_core.http_api.routes import (
    CatalogueView,
    route,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    Catalogue,
    Mech,
    MechRef,
)

ZERO_DIGEST = "0x" + "00" * 32


def parsed_mechs(
    manifests: Iterable[bytes], kind: str = "legacy_mech_registry"
) -> List[Mech]:
    """Parse manifests with the real parser, one mech each (ids 1, 2, ...).

    :param manifests: manifest bytes.
    :param kind: the registry kind of every mech.
    :return: the mechs, in order (a rejected manifest gives an invalid mech).
    """
    return [
        Mech.from_manifest(
            MechRef(100, kind, "0x" + "ab" * 20, index + 1),
            result.manifest,
            result.problems,
            ZERO_DIGEST,
            "bafy",
            7,
        )
        for index, result in enumerate(map(parse_manifest, manifests))
    ]


def agreed(catalogue: Catalogue, period: int = 1) -> ExposedCatalogue:
    """Pretend the agents agreed on ``catalogue`` now (computes its digest: RFC 8785, slow).

    :param catalogue: the catalogue.
    :param period: the period of the agreement.
    :return: what the skill publishes to its HTTP handler.
    """
    return ExposedCatalogue(
        catalogue, catalogue.digest(), "cd" * 32, 7, time.time(), period
    )


def served_view(published: ExposedCatalogue) -> CatalogueView:
    """Build the HTTP view the skill builds once per agreed catalogue (what is timed).

    :param published: the agreed catalogue (:func:`agreed`).
    :return: the view ``route`` answers from.
    """
    return CatalogueView.build(published)


def get(
    view: CatalogueView, url: str, page_size: int, now: Optional[float] = None
) -> HttpResult:
    """Answer one ``GET`` as the skill's handler does.

    :param view: the served view.
    :param url: path and query, e.g. ``/tools?cursor=...``.
    :param page_size: tools per page.
    :param now: unix time of the request (default: now).
    :return: the route's answer (status code, body).
    """
    return route(
        "GET", url, b"", view, time.time() if now is None else now, page_size, 3600.0
    )
