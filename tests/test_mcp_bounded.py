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

"""The bounded check runner of the MCP server (mech_catalogue_cli/mcp_server/bounded.py).

A forkserver child re-runs the entry script before each check; unless the forkserver has
already imported what that script imports, every check re-imports the CLI (2-4 s a call
on a loaded machine, found by a new user: valid arguments refused as too slow to check).
"""

import importlib.metadata
import logging
import multiprocessing
import os

import pytest

from mech_catalogue_cli.mcp_server import bounded


def _raises() -> None:
    raise ValueError("from the child")


def test_the_entry_points_module_is_preloaded() -> None:
    """Every console script of the distribution imports only preloaded modules first."""
    scripts = [
        entry
        for entry in importlib.metadata.entry_points(group="console_scripts")
        if entry.dist is not None and entry.dist.name == "mech-catalogue"
    ]
    assert scripts, "the mech-catalogue distribution declares no console script"
    for entry in scripts:
        assert entry.module in bounded.PRELOAD, entry


def test_checks_run_in_another_process_and_errors_come_back() -> None:
    """After warm_up, a check runs in a child (another pid) and its exception is re-raised."""
    bounded.warm_up()
    assert bounded.run_bounded(os.getpid, ()) != os.getpid()
    with pytest.raises(ValueError, match="from the child"):
        bounded.run_bounded(_raises, ())


def test_a_failed_warm_up_is_a_warning_and_the_thread_does_not_hold_the_exit(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The warm-up runs in a daemon thread; its failure is logged, never raised."""

    def fails() -> None:
        raise bounded.CheckTimeout("the check did not finish within 60 s")

    monkeypatch.setattr(bounded, "warm_up", fails)
    with caplog.at_level(logging.WARNING, logger="mech_catalogue.mcp"):
        thread = bounded.warm_up_in_background()
        thread.join(timeout=30)
    assert thread.daemon and not thread.is_alive()
    assert "did not finish within 60 s" in caplog.text
    assert "argument-check process did not start" in caplog.text


def test_a_check_whose_server_left_ends_quietly() -> None:
    """The child's answer to a closed pipe (its server exited) raises nothing."""
    receiver, sender = multiprocessing.Pipe(duplex=False)
    receiver.close()
    bounded._child(sender, os.getpid, ())  # pylint: disable=protected-access
    assert sender.closed
    receiver, sender = multiprocessing.Pipe(duplex=False)
    receiver.close()
    bounded._child(sender, _raises, ())  # pylint: disable=protected-access
    assert sender.closed
