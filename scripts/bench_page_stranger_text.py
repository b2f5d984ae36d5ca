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

"""Benchmark: the catalogue page's views in chromium, before and after adv29w's bounds.

Not a test (performance is measured here, never asserted). Since adv29w every text a
mech writes goes through ``page/dom.js`` ``strangerText`` (blank runs collapsed) and
``show`` reads each one's layout to say its cut. The catalogue: ``--tools`` tools of one
mech, each described by 1,024 characters of prose broken by runs of blank lines (``--shape
prose``: one paragraph, nothing to collapse), one offer each. Timed in the browser, from the hash set to the view rendered
(``body[data-ready]``, the API's answer included) and laid out (what a paint needs; the
page since adv29w lays a view out once itself, to measure its texts): the search view (``--page-size``
results) and one tool view.

``--before`` (a git revision, default ``main``) is extracted with ``git archive``; its
library's page is served by ``mech-catalogue serve`` beside the working tree's, both in
the same browser and run, in turns, median of ``--rounds``. Usage::

    python scripts/bench_page_stranger_text.py [--tools 200] [--page-size 100] [--rounds 15]
        [--shape blank-runs|prose]
"""

import argparse
import io
import json
import os
import statistics
import subprocess  # nosec B404: git and the CLI, fixed command lines
import sys
import tarfile
import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List

from mech_catalogue_core.manifest.parsing import parse_manifest
from mech_catalogue_core.tests.search.corpus import ref

from scripts.devnet.processes import free_port, wait_until
from tests.browser import Page, accepts_connections, chromium, priced_catalogue

ROOT = Path(__file__).resolve().parent.parent
PARAGRAPH = "High and low water for a port, by the hour, from the almanac."
#: waits until the view of a hash is rendered and laid out (the layout is read, as a
#: paint would), and gives the milliseconds it took
TIMED_RENDER = (
    "const [hash, done] = arguments;"
    "const start = performance.now();"
    "location.hash = hash;"
    "const ready = () => {"
    " if (document.body.getAttribute('data-ready') !== hash.slice(1))"
    "  return requestAnimationFrame(ready);"
    " void document.documentElement.scrollHeight;"
    " done(performance.now() - start);"
    "};"
    "requestAnimationFrame(ready);"
)


#: the descriptions' shapes: prose broken by runs of blank lines, or one paragraph
SHAPES = {"blank-runs": PARAGRAPH + "\n" * 6, "prose": PARAGRAPH + " "}


def catalogue_json(tools: int, shape: str) -> str:
    """Build the catalogue: one mech, ``tools`` tools of 1,024 characters each.

    :param tools: how many tools.
    :param shape: a key of :data:`SHAPES`.
    :return: ``Catalogue.to_json()``.
    """
    description = (SHAPES[shape] * 20)[:1024]
    metadata: Dict[str, Any] = {
        f"tide-{n:04d}": {"name": f"tide-{n:04d}", "description": description}
        for n in range(tools)
    }
    manifest = {"name": "Tides", "tools": list(metadata), "toolMetadata": metadata}
    parsed = parse_manifest(json.dumps(manifest).encode())
    assert parsed.manifest is not None
    return priced_catalogue(ref(1), parsed.manifest, parsed.problems)


def extracted_library(revision: str, folder: Path) -> Path:
    """Extract a revision's core library with ``git archive``.

    :param revision: a git revision.
    :param folder: where to extract it.
    :return: the library's folder (for ``PYTHONPATH``).
    """
    archive = subprocess.run(  # nosec B603 B607
        ["git", "archive", revision, "libs/mech-catalogue-core"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder / "libs" / "mech-catalogue-core"


@contextmanager
def serving(source: Path, library: Path, page_size: int) -> Iterator[int]:
    """Run ``mech-catalogue serve`` with a given core library first on the path.

    :param source: the catalogue file.
    :param library: the core library's folder.
    :param page_size: offers per page.
    :yield: the port it listens on.
    """
    port = free_port("127.0.0.1")
    environment = {**os.environ, "PYTHONPATH": f"{library}{os.pathsep}{ROOT}"}
    command = [sys.executable, "-m", "mech_catalogue_cli", "serve", "--from"]
    command += [str(source), "--port", str(port), "--page-size", str(page_size)]
    log_path = source.with_suffix(f".{port}.log")
    with (
        open(log_path, "wb") as log,
        subprocess.Popen(  # nosec B603
            command, stdout=log, stderr=log, env=environment
        ) as server,
    ):
        try:
            wait_until(
                lambda: accepts_connections(port), 60, "serve", server.pid, log_path
            )
            yield port
        finally:
            server.terminate()
            server.wait(timeout=10)


def timed(page: Page, hash_: str) -> float:
    """Render a view from another one and time it.

    :param page: the page.
    :param hash_: the view's hash (``#/...``).
    :return: milliseconds from the hash set to the view rendered.
    """
    page.driver.execute_async_script(TIMED_RENDER, "#/tool/none")
    return float(page.driver.execute_async_script(TIMED_RENDER, hash_))


def main() -> None:
    """Time both pages' views in turns and print the medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--page-size", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--before", default="main")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="blank-runs")
    options = parser.parse_args()
    views = {"search": "#/search", "tool": "#/tool/tide-0001"}
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        source = Path(folder) / "catalogue.json"
        source.write_text(
            catalogue_json(options.tools, options.shape), encoding="utf-8"
        )
        libraries = {
            options.before: extracted_library(options.before, Path(folder) / "before"),
            "working tree": ROOT / "libs" / "mech-catalogue-core",
        }
        driver = stack.enter_context(chromium())
        pages = {
            name: Page(
                driver,
                f"http://127.0.0.1:"
                f"{stack.enter_context(serving(source, library, options.page_size))}"
                "/catalogue/",
            )
            for name, library in libraries.items()
        }
        times: Dict[str, Dict[str, List[float]]] = {
            name: {view: [] for view in views} for name in pages
        }
        for _ in range(options.rounds):
            for name, page in pages.items():
                page.open()
                for view, hash_ in views.items():
                    times[name][view].append(timed(page, hash_))
    for view in views:
        medians = {name: statistics.median(times[name][view]) for name in pages}
        before, after = medians[options.before], medians["working tree"]
        print(
            f"{options.shape} {view}: {options.before} {before:.1f} ms, working tree {after:.1f} ms,"
            f" ratio {after / before:.2f}"
        )


if __name__ == "__main__":
    main()
