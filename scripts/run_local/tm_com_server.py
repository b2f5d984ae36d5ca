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

"""One Tendermint node behind open-autonomy's control server (``/hard_reset``, ``/gentle_reset``).

``python -m scripts.run_local.tm_com_server --host 127.0.0.1 --port <com port> --pid-file <f>``
with ``TMHOME``, ``PROXY_APP``, ``RPC_LADDR``, ``P2P_LADDR``, ``CREATE_EMPTY_BLOCKS``,
``USE_GRPC``, ``LOG_FILE`` and ``TMSTATE`` set, as ``autonomy deploy run`` does for a
localhost deployment (autonomy/deploy/generators/localhost/tendermint/app.py). Unlike
``flask run``, SIGTERM/SIGINT stop the Tendermint child too, and its current pid is kept
in ``--pid-file`` (it changes at every reset) so the launcher can always stop it by pid.

It also closes a race in open-autonomy 0.21.30's ``TendermintNode.stop``: the node is
stopped before its monitoring thread, so the thread can read the node's own shutdown line
("RPC HTTP server stopped"), take it for a dropped connection and start a new node while
``/hard_reset`` is deleting the data folder. That node then panics ("block.AppHash does not
match AppHash after replay"), its agent drops out of consensus and asks the ACN for
recovery parameters. :func:`stop_monitor_first` stops the monitor first.
"""

import signal
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any, Optional

import click


def stop_monitor_first(node: Any) -> None:
    """``TendermintNode.stop`` with the monitoring thread told to stop before the node.

    :param node: an ``autonomy.deploy.generators.localhost.tendermint.tendermint.TendermintNode``.
    """
    # pylint: disable=protected-access
    if node._monitoring is not None:
        node._monitoring.stop()
    node._stop_tm_process()
    node._stop_monitoring_thread()


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=int, required=True)
@click.option(
    "--pid-file", type=click.Path(dir_okay=False, path_type=Path), required=True
)
def main(host: str, port: int, pid_file: Path) -> None:
    """Start the node and serve its control API until SIGTERM/SIGINT."""
    # pylint: disable=import-outside-toplevel
    from autonomy.deploy.generators.localhost.tendermint.app import create_app
    from autonomy.deploy.generators.localhost.tendermint.tendermint import (
        TendermintNode,
    )

    TendermintNode.stop = stop_monitor_first  # type: ignore
    app, node = create_app()
    stopping = threading.Event()

    def track_pid() -> None:
        while not stopping.is_set():
            process = getattr(node, "_process", None)
            pid_file.write_text(str(process.pid) if process is not None else "")
            time.sleep(0.5)

    def stop(
        signum: int, frame: Optional[FrameType]
    ) -> None:  # pylint: disable=unused-argument
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    threading.Thread(target=track_pid, daemon=True).start()
    try:
        app.run(host=host, port=port)
    except KeyboardInterrupt:
        pass
    finally:
        stopping.set()
        node.stop()


if __name__ == "__main__":
    main()  # pylint: disable=no-value-for-parameter
