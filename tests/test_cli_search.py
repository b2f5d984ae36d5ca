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

"""``mech-catalogue search``: the library's query engine from the command line, CliRunner.

Offline cases search a catalogue file written with ``list --json``'s format (the search
corpus of realistic tool descriptions, plus a hostile manifest); one case reads the real
devnet (anvil registries + kubo) as ``list`` does and must agree with ``list --json``.
"""

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
from click.testing import CliRunner, Result
from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.tool import Tool
from mech_catalogue_core.search.index import SearchIndex
from mech_catalogue_core.search.query import SearchQuery
from mech_catalogue_core.tests.search.corpus import mechs, ref

from mech_catalogue_cli import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from mech_catalogue_cli.app import cli
from scripts.devnet import Devnet

#: a tool whose texts try rich markup, a terminal escape and an invisible character
HOSTILE = Tool(
    name="[bold red]fake-official[/]",
    kind="chat",
    description="[link=https://evil.example]click[/link] \x1b[31mred\x1b[0m paid\u200b tool",
)


def run(*args: Any) -> Result:
    """Return the result of one command line, a wide terminal so cells are not cut.

    :param args: the command line.
    :return: the result (stdout and stderr apart).
    """
    return CliRunner(env={"COLUMNS": "300"}).invoke(
        cli, [str(a) for a in args], catch_exceptions=False
    )


@pytest.fixture(name="catalogue_file")
def catalogue_file_fixture(tmp_path: Path) -> Path:
    """Write the corpus, plus a mech serving the hostile tool, as ``list --json`` does.

    :param tmp_path: pytest's folder.
    :return: the file.
    """
    hostile = Mech.from_manifest(
        ref(6), Manifest(tools=(HOSTILE,)), digest="0x" + "06" * 32
    )
    path = tmp_path / "catalogue.json"
    path.write_text(Catalogue.build([*mechs(), hostile]).to_json(), encoding="utf-8")
    return path


def matches(result: Result) -> List[Dict[str, Any]]:
    """Decode ``--json``'s matches.

    :param result: a successful run.
    :return: the matches.
    """
    assert result.exit_code == EXIT_OK, result.output
    return json.loads(result.stdout)["matches"]


def test_json_answers_ranked_matches_with_price_and_payment(
    catalogue_file: Path,
) -> None:
    """The best match for a description in other words comes first, with its offer facts."""
    found = matches(
        run("search", "draw an illustration", "--from", catalogue_file, "--json")
    )
    assert found[0]["tool"] == "dall-e-3"
    assert found[0]["price"] == "4000000000000000"
    assert found[0]["payments"] == ["native"] and found[0]["callable"] is True


def test_min_karma_and_karma_sort_from_the_command_line(catalogue_file: Path) -> None:
    """--min-karma keeps mechs whose karma reaches it; --sort karma is highest first."""
    args = ("--from", catalogue_file, "--json", "--limit", 50)
    floor = matches(run("search", "", "--min-karma", 2, *args))
    assert {m["mech"] for m in floor} == {ref(1).key, ref(3).key}
    assert {m["karma"] for m in floor} == {"3", "2"}
    ordered = matches(run("search", "prediction", "--sort", "karma", *args))
    karma = [None if m["karma"] is None else int(m["karma"]) for m in ordered]
    read = [k for k in karma if k is not None]
    assert read == sorted(read, reverse=True) and read[0] == 3
    assert karma[len(read) :] == [None] * (len(karma) - len(read))
    table = run("search", "", "--min-karma", 3, "--from", catalogue_file)
    assert table.exit_code == EXIT_OK and "karma" in table.stdout


def test_filters_and_price_sort_from_the_command_line(catalogue_file: Path) -> None:
    """Each option narrows as the engine's filter does; price order is cheapest first."""
    image = matches(
        run(
            "search",
            "",
            "--kind",
            "image",
            "--from",
            catalogue_file,
            "--json",
            "--limit",
            50,
        )
    )
    assert {m["kind"] for m in image} == {"image"} and len(image) == 3
    olas = matches(
        run(
            "search",
            "",
            "--payment",
            "token_olas",
            "--from",
            catalogue_file,
            "--json",
            "--limit",
            50,
        )
    )
    assert {m["mech"] for m in olas} == {ref(3).key}
    capped = matches(
        run(
            "search",
            "prediction",
            "--max-price",
            10**16,
            "--sort",
            "price",
            "--from",
            catalogue_file,
            "--json",
        )
    )
    prices = [int(m["price"]) for m in capped]
    assert prices == sorted(prices) and max(prices) <= 10**16
    legacy = matches(
        run(
            "search",
            "",
            "--registry-kind",
            "legacy_mech_registry",
            "--from",
            catalogue_file,
            "--json",
        )
    )
    assert {m["mech"] for m in legacy} == {ref(5).key}
    typed = matches(
        run("search", "", "--typed", "--from", catalogue_file, "--json", "--limit", 50)
    )
    assert typed and all(m["typed"] for m in typed)
    distinct = matches(
        run(
            "search",
            "prediction",
            "--distinct",
            "--from",
            catalogue_file,
            "--json",
            "--limit",
            50,
        )
    )
    assert len({m["tool"] for m in distinct}) == len(distinct)


def test_pages_follow_the_printed_cursor_and_agree_with_the_library(
    catalogue_file: Path,
) -> None:
    """Two-match pages walked by --cursor give the library's one-page answer."""
    walked: List[Dict[str, Any]] = []
    cursor = None
    while True:
        extra = ("--cursor", cursor) if cursor else ()
        result = run(
            "search",
            "market question",
            "--limit",
            2,
            "--from",
            catalogue_file,
            "--json",
            *extra,
        )
        walked += matches(result)
        cursor = json.loads(result.stdout)["next_cursor"]
        if cursor is None:
            break
    catalogue = Catalogue.from_json(catalogue_file.read_text(encoding="utf-8"))
    whole = SearchIndex.build(catalogue).search(
        SearchQuery(text="market question", page_size=200)
    )
    assert [(m["tool"], m["mech"]) for m in walked] == [
        (h.tool.name, h.mech.ref.key) for h in whole.hits
    ]


def test_manifest_text_is_shown_as_text_never_as_markup(catalogue_file: Path) -> None:
    """A tool name or description written as rich markup or escapes prints literally."""
    result = run("search", "paid tool click", "--from", catalogue_file)
    assert result.exit_code == EXIT_OK, result.output
    # shown as its characters: rich does not read it as console markup
    assert "[bold red]fake-official[/]" in result.stdout
    assert "&#91;" not in result.stdout
    assert "\x1b[31m" not in result.stdout and "\u200b" not in result.stdout
    found = matches(
        run("search", "paid tool click", "--from", catalogue_file, "--json")
    )
    assert found[0]["tool"] == HOSTILE.name
    assert (
        "\x1b" not in found[0]["description"]
        and "\u200b" not in found[0]["description"]
    )


@pytest.mark.parametrize(
    "args, says",
    [
        (("--cursor", "1.0123456789abcdef"), "--cursor"),
        (("--cursor", "nonsense"), "--cursor"),
        (("--limit", 0), "--limit"),
        (("--limit", 201), "--limit"),
        (("--max-price", -5), "--max-price"),
        (("--sort", "popularity"), "--sort"),
        (("--min-karma", "lots"), "--min-karma"),
        (("--min-karma", 2**62 + 1), "--min-karma"),
        (("--payment", "dollars"), "--payment"),
        (("--registry-kind", "ethereum"), "--registry-kind"),
    ],
)
def test_a_bad_option_is_a_usage_error_naming_it(
    catalogue_file: Path, args: tuple, says: str
) -> None:
    """Exit 2 and the option named; nothing is searched."""
    result = run("search", "prediction", "--from", catalogue_file, *args)
    assert result.exit_code == EXIT_USAGE
    assert says in result.stderr


def test_a_query_too_long_is_a_usage_error(catalogue_file: Path) -> None:
    """Query text over the engine's bound: exit 2 saying so."""
    result = run("search", "word " * 100, "--from", catalogue_file)
    assert result.exit_code == EXIT_USAGE and "characters" in result.stderr


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        '{"version": 99, "mechs": []}',
        '{"mechs": [{}]}',
        '{"x": 1}',  # not an empty catalogue: no mechs array at all
        "[]",
        '{"mechs": {"a": 1}}',
        "42",
    ],
)
def test_a_file_that_is_not_a_catalogue_exits_1_saying_how_to_write_one(
    tmp_path: Path, content: str
) -> None:
    """Exit 1 with catalogue_unreadable and the command that writes a catalogue file."""
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    result = run("search", "prediction", "--from", path, "--json")
    assert result.exit_code == EXIT_INVALID
    body = json.loads(result.stdout)
    assert body["error"]["code"] == "catalogue_unreadable"
    assert "list --json" in body["error"]["message"]
    assert "AttributeError(" not in body["error"]["message"]  # words, not a repr


def test_no_match_is_an_empty_answer_not_an_error(catalogue_file: Path) -> None:
    """Words no tool carries: exit 0 with no match and no cursor."""
    result = run("search", "zzyzx quux", "--from", catalogue_file, "--json")
    assert matches(result) == [] and json.loads(result.stdout)["next_cursor"] is None


def test_search_reads_the_devnet_as_list_does(devnet: Devnet) -> None:
    """On the real devnet: every match is a tool list --json shows for that mech."""
    args = ("--devnet", "--devnet-dir", devnet.info.state_dir)
    listed = json.loads(run("list", "--json", *args).stdout)
    offered = {
        (
            f"{m['ref']['chain_id']}:{m['ref']['registry_kind']}:{m['ref']['registry_address']}:{m['ref']['mech_id']}",
            t["name"],
        )
        for m in listed["mechs"]
        for t in m["tools"]
    }
    found = matches(run("search", "", "--limit", 200, "--json", *args))
    assert found and {(m["mech"], m["tool"]) for m in found} == offered
    some = sorted(offered)[0][1]
    named = matches(run("search", some, "--json", *args))
    assert some in [m["tool"] for m in named]


def test_delivered_within_and_recent_on_the_devnet(devnet: Devnet) -> None:
    """The real devnet: the seed's busy mech delivered, its idle ones did not.

    --delivered-within keeps the busy mech's tools alone (its window counted back from
    the block the facts were read at), --sort recent lists them first and a window
    ending before its last delivery keeps nothing.

    :param devnet: the devnet.
    """
    args = ("--devnet", "--devnet-dir", devnet.info.state_dir, "--json")
    market = devnet.contract("MechMarketplace")
    events = market.events.MarketplaceDelivery().get_logs(from_block=0)
    delivered_at = max(int(e["blockNumber"]) for e in events)
    head = int(devnet.w3.eth.block_number)
    everything_found = matches(run("search", "", "--limit", 200, *args))
    assert {m["last_delivery_block"] for m in everything_found} == {
        str(delivered_at),
        None,
    }
    window = head - delivered_at
    recent = matches(
        run("search", "", "--delivered-within", window, "--limit", 200, *args)
    )
    assert recent and {m["last_delivery_block"] for m in recent} == {str(delivered_at)}
    assert {m["mech"] for m in recent} < {m["mech"] for m in everything_found}
    if delivered_at < head:  # a window ending after the delivery keeps nothing
        assert matches(run("search", "", "--delivered-within", window - 1, *args)) == []
    ordered = matches(run("search", "", "--sort", "recent", "--limit", 200, *args))
    blocks = [m["last_delivery_block"] for m in ordered]
    assert blocks == sorted(blocks, key=lambda b: b is None)
    result = run("search", "", "--delivered-within", -1, *args)
    assert result.exit_code == EXIT_USAGE and "--delivered-within" in result.stderr


def test_a_missing_file_exits_1_saying_how_to_write_one(tmp_path: Path) -> None:
    """No such file: the same coded error, not a usage error."""
    result = run("search", "prediction", "--from", tmp_path / "absent.json", "--json")
    assert result.exit_code == EXIT_INVALID
    body = json.loads(result.stdout)
    assert body["error"]["code"] == "catalogue_unreadable"
    assert "no file" in body["error"]["message"]
    assert "list --json" in body["error"]["message"]


def test_search_says_a_lookalike_name(tmp_path: Path) -> None:
    """``search`` carries the catalogue's look-alike warning (issue 29).

    Before, ``onIine`` (capital I) beside ``online`` was listed with nothing said.

    :param tmp_path: pytest's folder.
    """
    twins = [
        Mech.from_manifest(
            ref(7 + i),
            Manifest(tools=(Tool(name=name, description="Forecasts a market."),)),
            digest="0x" + f"{7 + i:02x}" * 32,
        )
        for i, name in enumerate(("forecast-online", "forecast-onIine"))
    ]
    path = tmp_path / "catalogue.json"
    path.write_text(Catalogue.build(twins).to_json(), encoding="utf-8")
    found = matches(run("search", "forecasts", "--from", path, "--json"))
    assert len(found) == 2
    for match in found:
        (said,) = match["warnings"]
        assert said["code"] == "lookalike_tool_name"
    human = run("search", "forecasts", "--from", path)
    assert human.stdout.count("lookalike_tool_name") == 2


@pytest.mark.parametrize(
    "limit, mechs_found",
    [
        ("0.005native", {2}),  # 0.004 native passes, 0.01 native does not
        ("0.01 native", {1, 2}),
        ("6 olas", {3}),  # sets the payment: native offers are not compared
        ("4 OLAS", set()),
        ("1.5usdc", set()),
        (str(4 * 10**15), {2}),  # a bare integer: smallest units, any payment
    ],
)
def test_max_price_takes_an_amount_with_its_asset(
    catalogue_file: Path, limit: str, mechs_found: set
) -> None:
    """--max-price '1.5usdc' / '0.01 native' reads as MCP search_tools reads it."""
    found = matches(
        run(
            "search",
            "",
            "--max-price",
            limit,
            "--from",
            catalogue_file,
            "--json",
            "--limit",
            200,
        )
    )
    assert {m["mech"] for m in found} == {ref(i).key for i in mechs_found}


@pytest.mark.parametrize(
    "args, says",
    [
        (("--max-price", "1.5 dollars"), "usdc"),
        (("--max-price", "0.01native", "--payment", "token_olas"), "do not compare"),
        (("--max-price", "0.5 wei"), "whole numbers"),
    ],
)
def test_a_price_limit_of_no_known_asset_is_a_usage_error(
    catalogue_file: Path, args: tuple, says: str
) -> None:
    """Exit 2 naming --max-price and what to write instead."""
    result = run("search", "", "--from", catalogue_file, *args)
    assert result.exit_code == EXIT_USAGE
    assert "--max-price" in result.stderr and says in result.stderr


def test_the_table_counts_one_match_in_the_singular(catalogue_file: Path) -> None:
    """'1 match', not '1 matches'; more are 'matches'."""
    one = run(
        "search",
        "",
        "--kind",
        "resolve",
        "--mech",
        ref(5).key,
        "--from",
        catalogue_file,
    )
    assert one.exit_code == EXIT_OK and "1 match " in one.stdout
    several = run("search", "prediction", "--from", catalogue_file)
    assert " matches (" in several.stdout and "1 match " not in several.stdout
