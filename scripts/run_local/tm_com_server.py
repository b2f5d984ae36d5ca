"""One Tendermint node behind open-autonomy's control server (``/hard_reset``, ``/gentle_reset``).

``python -m scripts.run_local.tm_com_server --host 127.0.0.1 --port <com port> --pid-file <f>``
with ``TMHOME``, ``PROXY_APP``, ``RPC_LADDR``, ``P2P_LADDR``, ``CREATE_EMPTY_BLOCKS``,
``USE_GRPC``, ``LOG_FILE`` and ``TMSTATE`` set, as ``autonomy deploy run`` does for a
localhost deployment (autonomy/deploy/generators/localhost/tendermint/app.py). Unlike
``flask run``, SIGTERM/SIGINT stop the Tendermint child too, and its current pid is kept
in ``--pid-file`` (it changes at every reset) so the launcher can always stop it by pid.
"""

import signal
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Optional

import click


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
