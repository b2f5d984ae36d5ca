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

"""Parse JSON text with a real JavaScript engine (Node), as every JS client does.

``JSON.parse`` makes every JSON number a double (ECMA-262), so an integer beyond
+-(2**53-1) comes back with other digits; :func:`through_javascript` returns what a
JavaScript client holds after ``JSON.parse``, written back with ``JSON.stringify``.
Node 20 is installed on the development machines (``node`` on PATH); without it the
calling test is skipped, saying so.
"""

import json
import shutil
import subprocess  # nosec B404: runs the local node binary on our own text
from typing import Any

import pytest

#: reads JSON text on stdin, writes what JavaScript holds of it
_ROUND_TRIP = (
    "let s='';process.stdin.on('data',d=>s+=d);"
    "process.stdin.on('end',()=>process.stdout.write(JSON.stringify(JSON.parse(s))));"
)


def through_javascript(text: str) -> Any:
    """Return the value JavaScript's ``JSON.parse`` gives for JSON text.

    :param text: JSON text.
    :return: that value, read back in Python (a mangled integer comes back a float).
    """
    node = shutil.which("node")
    if node is None:
        pytest.skip("node (a JavaScript engine) is not on PATH")
    done = subprocess.run(  # nosec B603: fixed argv, our own text on stdin
        [node, "-e", _ROUND_TRIP],
        input=text.encode("utf-8"),
        capture_output=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def same_in_javascript(written: Any, held: Any) -> bool:
    """Whether what JavaScript holds is what we wrote.

    An integer must come back the same integer; a float the same double (``JSON.stringify``
    writes ``1e16`` as ``10000000000000000``, the same double).

    :param written: the value we wrote.
    :param held: :func:`through_javascript` of its text.
    :return: True when every leaf survived.
    """
    if written is None or isinstance(written, (bool, str)):
        return type(held) is type(written) and held == written
    if isinstance(written, int):
        return isinstance(held, int) and not isinstance(held, bool) and held == written
    if isinstance(written, float):
        return isinstance(held, (int, float)) and float(held) == written
    if isinstance(written, list):
        return (
            isinstance(held, list)
            and len(held) == len(written)
            and all(map(same_in_javascript, written, held))
        )
    return (
        isinstance(held, dict)
        and held.keys() == written.keys()
        and all(same_in_javascript(v, held[k]) for k, v in written.items())
    )


def survives_javascript(value: Any) -> bool:
    """Whether a JSON value reaches a JavaScript client unchanged.

    :param value: a JSON value as we write it (``json.dumps``).
    :return: True when ``JSON.parse`` of its text holds the same value.
    """
    return same_in_javascript(value, through_javascript(json.dumps(value)))
