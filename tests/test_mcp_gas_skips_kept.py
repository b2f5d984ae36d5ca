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

"""A mech skipped for gas over ``--max-gas`` stays skipped across processes (fix29zd).

The skip of fix29yh was the process's memory: a restart or a second server on the same
``--state-dir`` estimated the mech's request again. Here the skip is kept in
``<state-dir>/gas-over-bound.json`` (`mcp_server/gas_skips.py`); each sender below is a process
(its own :class:`.sending.RequestSender` over the same folder) with the stand-in
marketplace of ``tests/test_mcp_refused_offers.py``, whose ``signed`` counts the
estimates made (``sign`` estimates first).
"""

import json
import logging
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from mech_catalogue_cli.mcp_server.gas_skips import FILE_NAME, GasSkip, GasSkipRecord
from mech_catalogue_cli.mcp_server.market import DEFAULT_MAX_GAS, GasOverBound
from mech_catalogue_cli.mcp_server.offchain_sending import PriceRefusal
from mech_catalogue_cli.mcp_server.refused_offers import RevertingMechs, RevertRefusal
from tests.test_mcp_refused_offers import (  # noqa: F401  # pylint: disable=unused-import
    MECH,
    PRICE,
    _Market,
    _no_upload,
    _sender,
    _sent,
)

ESTIMATE = 10_282_093  # the adv29yp mech's request
WINDOW = 24 * 3600.0  # the senders' --spend-window (the default)


def _over_bound() -> _Market:
    return _Market(GasOverBound(_Market.address, ESTIMATE, DEFAULT_MAX_GAS), [PRICE])


def _skipped_without_estimate(folder: Path, market: _Market) -> None:
    """A call of a new process on ``folder``: its mech skipped, nothing estimated."""
    said = _sent(_sender(folder, market), "1" * 64)
    assert isinstance(said, PriceRefusal), said
    assert f"{ESTIMATE:,} gas" in said and "not sent another request" in said, said
    assert market.signed == 0 and not market.broadcasts


@pytest.mark.usefixtures("no_upload")
def test_a_restart_skips_the_mech_without_estimating_it_again(tmp_path: Path) -> None:
    """The refusal is written down; a restarted sender reads it before estimating.

    :param tmp_path: the state folder.
    """
    first = _over_bound()
    said = _sent(_sender(tmp_path, first))
    assert isinstance(said, RevertRefusal) and said.skip and first.signed == 1
    kept = json.loads((tmp_path / FILE_NAME).read_text(encoding="utf-8"))
    assert kept["version"] == 1
    assert kept["mechs"][MECH]["estimate"] == ESTIMATE
    assert kept["mechs"][MECH]["bound"] == DEFAULT_MAX_GAS
    _skipped_without_estimate(tmp_path, _over_bound())


@pytest.mark.usefixtures("no_upload")
def test_a_second_process_running_already_learns_the_skip(tmp_path: Path) -> None:
    """A sender started before the refusal reads the file again once it changed.

    :param tmp_path: the state folder.
    """
    other_market = _over_bound()
    other = _sender(tmp_path, other_market)
    assert not anyio_records(other)  # read once, before the refusal: no file yet
    _sent(_sender(tmp_path, _over_bound()))
    said = _sent(other, "2" * 64)
    assert "not sent another request" in said and other_market.signed == 0


def anyio_records(sender: Any) -> Any:
    """The sender's journal read, as a call makes it (learning the skips too)."""
    return anyio.run(sender.journal_records)


@pytest.mark.usefixtures("no_upload")
def test_a_raised_max_gas_tries_the_mech_again(tmp_path: Path) -> None:
    """A skip holds while its estimate is over the bound in use now.

    :param tmp_path: the state folder.
    """
    _sent(_sender(tmp_path, _over_bound()))
    raised = _Market(None, [PRICE])
    raised.max_gas = 20_000_000
    _sent(_sender(tmp_path, raised))
    assert raised.signed == 1  # estimated (and here signed) again


@pytest.mark.usefixtures("no_upload")
@pytest.mark.parametrize(
    "body",
    [
        "",
        '{"version": 1, "mechs": {"0x',  # truncated
        "\x00\x00\x00",
        "[]",
        '{"version": 2, "mechs": {}}',
        '{"version": 1, "mechs": []}',
        '{"version": 1}',
        b"\xff\xfe{}",
    ],
)
def test_a_garbled_record_is_a_warning_naming_it_and_nothing_is_paid_over_the_bound(
    tmp_path: Path, body: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Ignored with a warning; the mech estimated again and refused again, nothing sent.

    :param tmp_path: the state folder.
    :param body: the file's content.
    :param caplog: pytest's log capture.
    """
    path = tmp_path / FILE_NAME
    if isinstance(body, bytes):
        path.write_bytes(body)
    else:
        path.write_text(body, encoding="utf-8")
    market = _over_bound()
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        said = _sent(_sender(tmp_path, market))
    assert isinstance(said, RevertRefusal) and said.skip, said
    assert market.signed == 1 and not market.broadcasts
    assert any(str(path) in r.getMessage() for r in caplog.records), caplog.text
    # and the record is whole again: the next process skips without an estimate
    _skipped_without_estimate(tmp_path, _over_bound())


@pytest.mark.parametrize(
    "entry",
    [
        {"at": "now", "estimate": ESTIMATE, "bound": DEFAULT_MAX_GAS},
        {"at": float("nan"), "estimate": ESTIMATE, "bound": DEFAULT_MAX_GAS},
        {"at": True, "estimate": ESTIMATE, "bound": DEFAULT_MAX_GAS},
        {"at": 1.0, "estimate": -5, "bound": DEFAULT_MAX_GAS},
        {"at": 1.0, "estimate": ESTIMATE, "bound": 0},
        {"at": 1.0, "estimate": "10282093", "bound": DEFAULT_MAX_GAS},
        [1.0, ESTIMATE],
    ],
)
def test_an_entry_not_of_the_record_s_shape_is_left_out(
    tmp_path: Path, entry: Any
) -> None:
    """Only the entries of the shape this server writes are read; the others dropped.

    :param tmp_path: the state folder.
    :param entry: the mech's entry.
    """
    good = {"at": time.time(), "estimate": ESTIMATE, "bound": DEFAULT_MAX_GAS}
    mechs = {MECH: entry, "0x" + "0b" * 20: good, "0xNOTANADDRESS": good}
    (tmp_path / FILE_NAME).write_text(
        json.dumps({"version": 1, "mechs": mechs}), encoding="utf-8"
    )
    assert [s.mech for s in GasSkipRecord(tmp_path).load()] == ["0x" + "0b" * 20]


def test_a_date_in_the_future_never_lengthens_the_skip(tmp_path: Path) -> None:
    """A skip dated a year ahead is read as now: it ends one window from now.

    :param tmp_path: the state folder.
    """
    now = time.time()
    record = GasSkipRecord(tmp_path)
    record.add(GasSkip(MECH, now + 365 * 86400, ESTIMATE, DEFAULT_MAX_GAS), WINDOW)
    skips = GasSkipRecord(tmp_path).load(now)
    assert skips[0].at == now
    mechs = RevertingMechs(WINDOW)
    mechs.learn_gas(skips, DEFAULT_MAX_GAS, now)
    assert mechs.why(MECH, now + WINDOW - 1) is not None
    assert mechs.why(MECH, now + WINDOW + 1) is None


def test_skips_older_than_the_window_are_neither_learnt_nor_kept(
    tmp_path: Path,
) -> None:
    """An old skip: tried again; the next write drops it.

    :param tmp_path: the state folder.
    """
    now = time.time()
    record = GasSkipRecord(tmp_path)
    old = GasSkip("0x" + "0b" * 20, now - WINDOW - 5, ESTIMATE, DEFAULT_MAX_GAS)
    record.add(old, 10 * WINDOW)
    mechs = RevertingMechs(WINDOW)
    mechs.learn_gas(GasSkipRecord(tmp_path).load(now), DEFAULT_MAX_GAS, now)
    assert mechs.why(old.mech, now) is None
    record.add(GasSkip(MECH, now, ESTIMATE, DEFAULT_MAX_GAS), WINDOW)
    assert [s.mech for s in GasSkipRecord(tmp_path).load(now)] == [MECH]


def test_a_mech_paid_since_is_not_learnt_back_from_an_older_skip() -> None:
    """Forgotten (paid since): an older skip in the file does not skip it again."""
    now = time.time()
    mechs = RevertingMechs(WINDOW)
    mechs.forget(MECH)  # nothing remembered: nothing forgotten
    mechs.remember_mech(MECH, "x", True, now - 10)
    mechs.forget(MECH)
    mechs.learn_gas(
        [GasSkip(MECH, now - 20, ESTIMATE, DEFAULT_MAX_GAS)], DEFAULT_MAX_GAS, now
    )
    assert mechs.why(MECH, now) is None


@pytest.mark.usefixtures("no_upload")
def test_an_unwritable_state_folder_keeps_the_skip_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The file cannot be written: a warning; this process still skips the mech.

    :param tmp_path: the state folder.
    :param caplog: pytest's log capture.
    """
    (tmp_path / FILE_NAME).mkdir()  # a folder where the file goes: os.replace fails
    market = _over_bound()
    sender = _sender(tmp_path, market)
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        _sent(sender)
    assert "cannot be written" in caplog.text
    said = _sent(sender, "3" * 64)
    assert "not sent another request" in said and market.signed == 1
