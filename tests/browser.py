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


"""A real headless browser for the catalogue page's tests: Debian's chromium, driven by selenium.

The browser is Debian's ``chromium`` with its ``chromium-driver`` (``/usr/bin/chromium``,
``/usr/bin/chromedriver``; ``make setup`` installs both when it runs as root, see
scripts/setup.sh); selenium comes from PyPI (requirements.txt). Selenium is given both
paths, so it never looks for or downloads a browser or driver of its own. Where they are
missing, :func:`missing_browser` says what to install and the tests skip saying it.
"""

import json
import socket
import subprocess  # nosec B404: the CLI under test, started with a fixed command line
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence

from mech_catalogue_core.catalogue.request_payment import NATIVE_PAYMENT_TYPE
from mech_catalogue_core.model.catalogue import Catalogue, Manifest, Mech
from mech_catalogue_core.model.market import MechFacts
from mech_catalogue_core.model.problems import Problem
from mech_catalogue_core.model.tool import MechRef

from scripts.devnet.processes import free_port, wait_until

#: Debian's browser and its WebDriver (packages ``chromium`` and ``chromium-driver``)
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
INSTALL_HINT = (
    "install Debian's chromium and its driver (`apt-get install chromium "
    "chromium-driver`, which `make setup` does when run as root) and selenium "
    "(requirements.txt)"
)
#: seconds a view has to render
RENDER_TIMEOUT = 30.0


def missing_browser() -> Optional[str]:
    """Say what is missing to drive the browser.

    :return: None when chromium, its driver and selenium are there, else the skip reason.
    """
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    try:
        import selenium  # noqa: F401  # pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        missing.append("selenium")
    if not missing:
        return None
    return f"the browser test needs {', '.join(missing)}: {INSTALL_HINT}"


@contextmanager
def chromium() -> Iterator[Any]:
    """Start headless chromium under its WebDriver; quit it after.

    :yield: the selenium ``WebDriver``; its console log is kept (``browser_log``).
    """
    # pylint: disable=import-outside-toplevel
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in a container has no user namespace for the sandbox
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--window-size=1280,1000",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


class Page:
    """The catalogue page in a browser: open a view, wait for it, read it.

    :param driver: the WebDriver.
    :param base: the page's URL (``http://host:port/catalogue/``).
    """

    def __init__(self, driver: Any, base: str) -> None:
        """Keep the driver and the page's URL.

        :param driver: the WebDriver.
        :param base: the page's URL.
        """
        self.driver = driver
        self.base = base

    def open(self, fragment: str = "") -> None:
        """Load the page afresh at a view and wait until it is rendered.

        :param fragment: the view's hash without ``#`` ("" for the search).
        """
        self.driver.get("about:blank")
        self.driver.get(self.base + ("#" + fragment if fragment else ""))
        self.wait_rendered()

    def wait_rendered(self, previous: Optional[str] = None) -> None:
        """Wait until the view of the current hash is rendered (``body[data-ready]``).

        :param previous: a hash rendered before (wait until another one is).
        """
        # pylint: disable=import-outside-toplevel
        from selenium.webdriver.support.ui import WebDriverWait

        script = (
            "const hash = location.hash.replace(/^#/, '') || '/';"
            "return document.body.getAttribute('data-ready') === hash ? hash : null;"
        )

        def rendered(driver: Any) -> bool:
            hash_now = driver.execute_script(script)
            return hash_now is not None and hash_now != previous

        WebDriverWait(self.driver, RENDER_TIMEOUT).until(rendered)

    def current(self) -> str:
        """Return the rendered view's hash.

        :return: ``body[data-ready]``.
        """
        return str(self.driver.execute_script("return document.body.dataset.ready"))

    def click(self, element: Any) -> None:
        """Click a link to another view and wait for it.

        :param element: the link.
        """
        before = self.current()
        element.click()
        self.wait_rendered(previous=before)

    def css(self, selector: str) -> List[Any]:
        """Find elements.

        :param selector: a CSS selector.
        :return: the elements.
        """
        from selenium.webdriver.common.by import (  # pylint: disable=import-outside-toplevel
            By,
        )

        return list(self.driver.find_elements(By.CSS_SELECTOR, selector))

    def texts(self, selector: str) -> List[str]:
        """Return the exact text content of the elements a selector finds.

        :param selector: a CSS selector.
        :return: each element's ``textContent`` (not the rendered text, which trims).
        """
        return list(
            self.driver.execute_script(
                "return [...document.querySelectorAll(arguments[0])]"
                ".map(e => e.textContent)",
                selector,
            )
        )

    def offer_rows(self) -> List[Dict[str, str]]:
        """Read the search view's results.

        :return: per row: ``tool``, ``kind``, ``mech`` (its key) and ``price`` texts.
        """
        return list(
            self.driver.execute_script(
                "return [...document.querySelectorAll('#results tbody tr')].map(r => ({"
                "tool: r.cells[0].textContent, kind: r.cells[1].textContent,"
                "mech: r.cells[2].querySelector('a').getAttribute('title'),"
                "price: r.cells[3].textContent}))"
            )
        )

    def log(self) -> List[Dict[str, Any]]:
        """Return the console messages since the last call.

        :return: chromium's log entries (``level``, ``message``, ``source``).
        """
        return list(self.driver.get_log("browser"))

    def fetch_json(self, path: str) -> Any:
        """GET a JSON path of the same server from the page (as the page reads the API).

        :param path: e.g. ``/tools/x`` (percent-encoded as sent).
        :return: the decoded body.
        """
        text = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0]).then(r => r.text()).then(done, e => done(String(e)));",
            path,
        )
        return json.loads(text)


def accepts_connections(port: int) -> bool:
    """Say whether a server accepts connections on a loopback port.

    :param port: the port.
    :return: True when a connection was accepted.
    """
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def priced_catalogue(
    mech_ref: MechRef, manifest: Manifest, problems: Sequence[Problem] = ()
) -> str:
    """The catalogue of one mech serving ``manifest``, priced on a marketplace.

    :param mech_ref: the mech's registry reference.
    :param manifest: its parsed manifest.
    :param problems: the parser's problems with it.
    :return: the catalogue's JSON, as :func:`served_page` takes it.
    """
    mech = Mech.from_manifest(
        mech_ref, manifest, tuple(problems), digest="0x" + "77" * 32
    )
    facts = MechFacts(
        address="0x" + "0a" * 20,
        max_delivery_rate=10**16,
        block=50,
        confirmed=True,
        payment_type=NATIVE_PAYMENT_TYPE,
    )
    return Catalogue.build([replace(mech, marketplace=(facts,))]).to_json()


@contextmanager
def served_page(catalogue_json: str, folder: Path) -> Iterator[Page]:
    """Serve a catalogue with ``mech-catalogue serve`` and open its page in chromium.

    :param catalogue_json: the catalogue (``Catalogue.to_json()``).
    :param folder: where its file and the server's log are written.
    :yield: the page, not yet opened at a view.
    """
    source = folder / "catalogue.json"
    source.write_text(catalogue_json, encoding="utf-8")
    port = free_port("127.0.0.1")
    log_path = folder / "serve.log"
    command = [sys.executable, "-m", "mech_catalogue_cli", "serve", "--from"]
    command += [str(source), "--port", str(port)]
    with (
        open(log_path, "wb") as log,
        subprocess.Popen(command, stdout=log, stderr=log) as server,  # nosec B603
    ):
        try:
            wait_until(
                lambda: accepts_connections(port), 60, "serve", server.pid, log_path
            )
            with chromium() as driver:
                yield Page(driver, f"http://127.0.0.1:{port}/catalogue/")
        finally:
            server.terminate()
            server.wait(timeout=10)
