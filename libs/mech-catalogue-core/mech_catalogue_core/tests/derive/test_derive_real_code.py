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

"""Derivation on code written like public mech tools (issue #12 item 4), one test per kind.

Kinds: a helper parameter the call site binds itself is not a caller argument; a read the
tool refuses to go on without is required whatever ``.get`` suggests; a value passed to an
annotated parameter takes that parameter's type over its literal default's.
"""

from pathlib import Path
from textwrap import dedent
from typing import Dict

import pytest
from mech_catalogue_core.adapters.package_folder import derive_package
from mech_catalogue_core.derive.derive import (
    DerivedArgument,
    derive_source,
)


def _args(source: str) -> Dict[str, DerivedArgument]:
    return {a.identifier: a for a in derive_source(dedent(source)).request_arguments}


def test_a_priced_swap_package_gives_what_a_caller_must_send(tmp_path: Path) -> None:
    """The three kinds together, in a package folder (like the shared derive-style case)."""
    folder = tmp_path / "swap_quote"
    folder.mkdir()
    (folder / "component.yaml").write_text(
        "name: swap_quote\nauthor: t\nversion: 0.1.0\ntype: custom\n"
        "description: Quotes a swap.\nentry_point: swap_quote.py\ncallable: run\n"
    )
    (folder / "swap_quote.py").write_text(dedent("""
        ALLOWED_TOOLS = ["swap-quote"]
        DEFAULTS = {"fee_bps": 30, "venue": "uni"}

        def query(client, market: str, venue: str = "uni", **kwargs):
            return client, market, venue, kwargs.get("depth", 10)

        def with_fee(amount: float, fee_bps: float) -> float:
            return amount * (1 - fee_bps / 10000)

        def run(**kwargs):
            client = kwargs["api_keys"]["dex"]
            market = kwargs.get("market")
            if not market:
                return "market is required", None, None, None
            fee = kwargs.get("fee_bps", DEFAULTS["fee_bps"])
            quote = query(client, **kwargs)
            return str(with_fee(fee_bps=fee, amount=1.0)), quote, None, None
        """))
    package = derive_package(folder)
    args = {a.identifier: a for a in package.request_arguments}
    assert set(args) == {"market", "fee_bps", "venue", "depth"}
    assert (args["market"].required, args["market"].default_json) == (True, None)
    assert not args["market"].nullable
    assert (args["fee_bps"].type, args["fee_bps"].type_source) == ("float", "flow")
    assert (args["fee_bps"].required, args["fee_bps"].default_json) == (False, "30")
    assert (args["venue"].type, args["venue"].required) == ("str", False)
    assert (args["depth"].type, args["depth"].default_json) == ("int", "10")
    tool = package.to_tools()[0]
    market = next(a for a in tool.arguments if a.identifier == "market")
    assert (market.type, market.required) == ("str", True)


@pytest.mark.parametrize(
    "call",
    [
        "fetch(session=conn, **kwargs)",
        "fetch(conn, **kwargs)",
        "fetch(conn, limit=3, **kwargs)",
    ],
)
def test_parameters_the_call_binds_are_not_caller_arguments(call: str) -> None:
    """Keyword- or position-bound helper parameters come from the tool, not the request."""
    args = _args(f"""
        def fetch(session, query: str, limit: int = 5, **kwargs):
            return session, query, limit

        def run(**kwargs):
            conn = object()
            return {call}
        """)
    assert "session" not in args
    assert (args["query"].type, args["query"].required) == ("str", True)
    if "limit=3" in call:
        assert "limit" not in args
    else:
        assert (args["limit"].type, args["limit"].required) == ("int", False)


def test_bound_parameters_through_nested_helpers() -> None:
    """A binding two helpers deep is honoured; an unbound parameter there is still read."""
    args = _args("""
        def inner(secret, endpoint: str = "https://x", **kwargs):
            return secret, endpoint, kwargs["question"]

        def outer(key, **kwargs):
            return inner(secret=key, **kwargs)

        def run(**kwargs):
            return outer(kwargs["api_keys"]["k"], **kwargs)
        """)
    assert set(args) == {"endpoint", "question"}
    assert args["question"].required and not args["endpoint"].required


def test_an_unbound_helper_parameter_is_still_a_required_argument() -> None:
    """Control: nothing binds ``depth``, so the request must carry it."""
    args = _args("""
        def helper(depth: int, **kw):
            return depth

        def run(**kwargs):
            return helper(**kwargs)
        """)
    assert (args["depth"].type, args["depth"].required) == ("int", True)


@pytest.mark.parametrize(
    "body, required",
    [
        (
            'x = kwargs.get("x")\n    if x is None:\n        return "no x", None',
            {"x"},
        ),
        (
            'x = kwargs.get("x", "")\n    if not x:\n        return "empty x", None',
            {"x"},
        ),
        ('if "x" not in kwargs:\n        raise ValueError("x")', {"x"}),
        (
            'x = kwargs.get("x")\n    y = kwargs.get("y")\n'
            '    if x is None or y == None:\n        return "need both", None',
            {"x", "y"},
        ),
        (
            'if (x := kwargs.get("x")) is None:\n        return "no x", None',
            {"x"},
        ),
        ('if kwargs.get("x") is None:\n        raise KeyError("x")', {"x"}),
        # a fallback, not a refusal: the tool goes on
        ('x = kwargs.get("x")\n    if x is None:\n        x = 3', set()),
        # the check is on another value
        (
            'x = kwargs.get("x")\n    z = None\n    if z is None:\n        return "z", None',
            set(),
        ),
    ],
)
def test_reads_the_callable_refuses_to_go_without_are_required(
    body: str, required: set
) -> None:
    """``.get`` then an error return/raise when missing means the caller must give it."""
    args = _args(f'def run(**kwargs):\n    {body}\n    return "ok", kwargs.get("y")\n')
    assert {k for k, a in args.items() if a.required} == required
    for identifier in required:
        assert args[identifier].default_json is None
        assert not args[identifier].nullable


def test_a_helper_refuses_by_raising_not_by_returning() -> None:
    """A helper's ``raise`` fails the request; a helper's early ``return`` is a fallback."""
    args = _args("""
        def _check(**kw):
            if kw.get("chain_id") is None:
                raise ValueError("chain_id")

        def _pick(**kw):
            v = kw.get("variant")
            if v is None:
                return "a"
            return v

        def run(**kwargs):
            _check(**kwargs)
            return _pick(**kwargs), None
        """)
    assert args["chain_id"].required
    assert not args["variant"].required and args["variant"].nullable


@pytest.mark.parametrize(
    "source, expected",
    [
        (  # default through a module constant, passed by keyword
            """
            LIMITS = {"ratio": 1}
            def scale(value: float, ratio: float = 0.5) -> float:
                return value * ratio
            def run(**kwargs):
                r = kwargs.get("ratio", LIMITS["ratio"])
                return scale(2.0, ratio=r), None
            """,
            ("float", "flow", "1"),
        ),
        (  # the read passed directly, positionally
            """
            def scale(factor: float) -> float:
                return factor
            def run(**kwargs):
                return scale(kwargs.get("factor", 2)), None
            """,
            ("float", "flow", "2"),
        ),
        (  # a conversion decides before the flow
            """
            def scale(factor: float) -> float:
                return factor
            def run(**kwargs):
                return scale(int(kwargs.get("factor", 2))), None
            """,
            ("int", "conversion", "2"),
        ),
        (  # an unannotated parameter says nothing: the default's type stays
            """
            def scale(factor):
                return factor
            def run(**kwargs):
                f = kwargs.get("factor", 2)
                return scale(f), None
            """,
            ("int", "default", "2"),
        ),
        (  # a name rebound to something else is not followed
            """
            def scale(factor: float) -> float:
                return factor
            def run(**kwargs):
                f = kwargs.get("factor", 2)
                f = 7
                return scale(f), None
            """,
            ("int", "default", "2"),
        ),
    ],
)
def test_a_value_takes_the_type_of_the_parameter_it_flows_into(
    source: str, expected: tuple
) -> None:
    """An int literal default flowing into a ``float`` parameter is a float argument."""
    args = _args(source)
    (argument,) = args.values()
    assert (argument.type, argument.type_source, argument.default_json) == expected


@pytest.mark.parametrize(
    "import_line",
    [
        "from .net import post",
        "from packages.tester.customs.relay.net import post",
        "from .net import post as send",
    ],
)
def test_helpers_imported_from_sibling_modules_are_followed(
    tmp_path: Path, import_line: str
) -> None:
    """A helper in another module of the package reads kwargs like a local one would."""
    folder = tmp_path / "relay"
    folder.mkdir()
    (folder / "component.yaml").write_text(
        "name: relay\nauthor: tester\nversion: 0.1.0\ntype: custom\n"
        "description: Relays.\nentry_point: relay.py\ncallable: run\n"
    )
    call = "send" if " as send" in import_line else "post"
    (folder / "relay.py").write_text(
        f"{import_line}\n\ndef run(**kwargs):\n"
        f"    return {call}(session=kwargs['api_keys'], **kwargs), None\n"
    )
    (folder / "net.py").write_text(
        "def post(session, url: str, retries: int = 2, **kwargs):\n"
        "    return url, kwargs.get('timeout', 1.5)\n"
    )
    (folder / "broken.py").write_text("def (:\n")  # not imported: never matters
    args = {a.identifier: a for a in derive_package(folder).request_arguments}
    assert set(args) == {"url", "retries", "timeout"}
    assert (args["url"].type, args["url"].required) == ("str", True)
    assert (args["timeout"].type, args["retries"].default_json) == ("float", "2")
