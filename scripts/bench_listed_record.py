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

"""Benchmark of a sessionless listing's save, with and without the adv29p marks.

Not a test (performance is measured, not asserted). What adv29p added to each save of
the sessionless listed record (``ListedSchemas.save``, run before a changed listing
is answered): a look for ``.listed-schemas.stale`` and a flush of the folder after the
rename. Timed, best of ``--rounds``, on a record of ``--names`` tools (default 1 and
4,096, the bound) with schemas of ``--schema-bytes`` bytes each (default 1,000: a
4,096-name record is about 4.5 MB), one tool's schema changed before each save:

- ``now``: ``ListedSchemas.save`` as it is;
- ``before``: the same with the look and the flush taken out (``listed_file.present``
  answering False, ``listed_file.fsync_folder`` doing nothing): the save before adv29p.

Also timed once: ``Journal.written`` on a journal of ``--entries`` entries and no
list of writes (the start of a server upgraded from before 2026-12-02, its worst case).
The folder is made under ``--folder`` (default: the current folder, a real disk; a
tmpfs makes every flush free).

Usage::

    python scripts/bench_listed_record.py [--names 1 4096] [--schema-bytes 1000]
        [--rounds 5] [--entries 10000] [--folder .]
"""

import argparse
import contextlib
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# pylint: disable=wrong-import-position
from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: E402

from mech_catalogue_cli.mcp_server import listed_file  # noqa: E402
from mech_catalogue_cli.mcp_server.journal import Journal  # noqa: E402
from mech_catalogue_cli.mcp_server.listed_schemas import ListedSchemas  # noqa: E402


class _Sessionless:  # pylint: disable=too-few-public-methods
    """Stands for a 2026-07-28 HTTP request's session (``session_key`` reads it)."""

    class _Connection:  # pylint: disable=too-few-public-methods
        protocol_version = sorted(MODERN_PROTOCOL_VERSIONS)[-1]
        has_standalone_channel = False

    _connection = _Connection()


def _tool(index: int, version: int, schema_bytes: int) -> Dict[str, Any]:
    return {
        "name": f"tool_{index}",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "type": "object",
            "description": f"v{version} " + "x" * schema_bytes,
        },
    }


@contextlib.contextmanager
def _before() -> Iterator[None]:
    """The save as it was before adv29p: no look for the stale mark, no flush."""
    present, flush = listed_file.present, listed_file.fsync_folder
    listed_file.present = lambda folder, name: False
    listed_file.fsync_folder = lambda folder: None
    try:
        yield
    finally:
        listed_file.present, listed_file.fsync_folder = present, flush


def _time_saves(folder: Path, names: int, schema_bytes: int, rounds: int) -> float:
    """Best seconds of one save of a record of ``names`` tools, one of them changed."""
    listed = ListedSchemas(folder)
    session = _Sessionless()
    tools = [_tool(i, 0, schema_bytes) for i in range(names)]
    if listed.remember(session, tools, True):
        listed.save(listed.snapshot())
    best = float("inf")
    for version in range(1, rounds + 1):
        tools[0] = _tool(0, version, schema_bytes)
        assert listed.remember(session, tools[:1], False)
        memory = listed.snapshot()
        start = time.perf_counter()
        assert listed.save(memory)
        best = min(best, time.perf_counter() - start)
    return best


def _time_journal(folder: Path, entries: int) -> float:
    journal = Journal(folder)
    for index in range(entries):
        (journal.folder / f"{index:064x}.json").write_text("{}", encoding="utf-8")
    start = time.perf_counter()
    assert journal.written()
    return time.perf_counter() - start


def main(argv: List[str]) -> None:
    """Print the timings.

    :param argv: the command line's arguments.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--names", type=int, nargs="+", default=[1, 4096])
    parser.add_argument("--schema-bytes", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--folder", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="bench-listed-", dir=args.folder))
    try:
        print("names  before ms  now ms  now/before")
        for names in args.names:
            with _before():
                before = _time_saves(
                    root / f"b{names}", names, args.schema_bytes, args.rounds
                )
            now = _time_saves(root / f"n{names}", names, args.schema_bytes, args.rounds)
            print(
                f"{names:5d}  {before * 1e3:9.2f}  {now * 1e3:6.2f}  "
                f"{now / before:10.2f}"
            )
        seconds = _time_journal(root / "journal", args.entries)
        print(f"Journal.written, {args.entries} entries: {seconds * 1e3:.2f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
