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

"""Secrets of configured URLs kept out of every error text and log record.

RPC providers, IPFS APIs and gateways take their API key in the URL: userinfo
(``http://user:SECRET@host:5001``), a path segment (``https://host/v3/KEY``) or the query
(``?apikey=KEY``). Libraries quote parts of it in their errors: ``requests`` names only
the path (``url: /v3/KEY``), a traceback the whole call. Replacing the whole URL misses
those, so :func:`secret_fragments` lists every part that may be secret, and
:func:`redact` replaces each wherever it appears in a text. The CLI registers each URL
it was configured with (:func:`register_urls`) and applies :func:`redact` to error
results and CLI failures, and :class:`RedactingFilter` to every log record (message,
arguments, traceback).

Every command is covered from the CLI's entry (``app.py``): before any command runs,
:func:`register_command_line` registers each URL of its command line and of the CLI's
environment variables, :func:`install_log_redaction` filters the log, and every console
the commands print through writes via :class:`RedactingStream`.
"""

import logging
import re
import threading
import urllib.parse
from typing import IO, Iterable, List, Mapping, Optional, Sequence, Set

from .adapters.urls import redacted_url

#: what a secret is replaced by
REDACTED = "…"
#: user names, passwords and query values shorter than this are not replaced alone
#: (they would match ordinary words); the URL and userinfo they are part of still are
MIN_SECRET_CHARS = 4
#: a path segment is replaced alone when this long, or at least 8 long with a digit
#: (API keys: Infura 32 hex, Alchemy 32 alphanumerics); shorter ones (``v3``,
#: ``mainnet``, ``api``) only as part of the whole path
MIN_SEGMENT_CHARS = 20

_LOCK = threading.Lock()
_URLS: Set[str] = set()
_FRAGMENTS: List[str] = []


def _secret_segment(segment: str) -> bool:
    return len(segment) >= MIN_SEGMENT_CHARS or (
        len(segment) >= 8 and bool(re.search(r"\d", segment))
    )


def secret_fragments(url: str) -> List[str]:
    """Every part of ``url`` that may be a secret, longest first.

    :param url: a configured URL (RPC, IPFS API, gateway, agent).
    :return: userinfo (``user:password@``, the user and password alone when at least
        :data:`MIN_SECRET_CHARS` long), the path when not empty or ``/``, its segments
        that look like keys, the query and each of its values, the fragment; each as
        written and percent-decoded.
    """
    parts = urllib.parse.urlsplit(url.strip())
    found: Set[str] = set()
    if "@" in parts.netloc:
        found.add(parts.netloc.rsplit("@", 1)[0] + "@")
    for secret in (parts.username, parts.password):
        if secret and len(secret) >= MIN_SECRET_CHARS:
            found.add(secret)
    path = parts.path.rstrip("/")
    if path.strip("/"):
        found.add(path)
        found.update(s for s in path.split("/") if _secret_segment(s))
    if parts.query:
        found.add(parts.query)
        found.update(
            value
            for _, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
            if len(value) >= MIN_SECRET_CHARS
        )
    if parts.fragment:
        found.add(parts.fragment)
    decoded = {urllib.parse.unquote(f) for f in found}
    return sorted(found | decoded, key=lambda f: (-len(f), f))


def register_urls(*urls: Optional[str]) -> None:
    """Remember configured URLs: :func:`redact` hides their secrets from then on.

    :param urls: URLs (None and "" are skipped).
    """
    with _LOCK:
        for url in urls:
            if url and url not in _URLS:
                _URLS.add(url)
        fragments = {f for url in _URLS for f in secret_fragments(url)}
        _FRAGMENTS[:] = sorted(fragments, key=lambda f: (-len(f), f))


#: environment variables the CLI reads URLs from share this prefix (``MECH_CATALOGUE_RPC``,
#: ``MECH_CATALOGUE_IPFS_API``, ``MECH_CATALOGUE_IPFS_GATEWAY``)
ENV_PREFIX = "MECH_CATALOGUE_"


def command_line_urls(args: Sequence[str], environ: Mapping[str, str]) -> List[str]:
    """The URLs a command line and the CLI's environment variables configure.

    :param args: the command line after the program name (``--rpc=URL`` and ``--rpc
        URL`` alike; comma-separated lists are split).
    :param environ: the environment (only :data:`ENV_PREFIX` variables are read).
    :return: every value holding ``://``, in order, without repeats.
    """
    values = [
        a.split("=", 1)[1] if a.startswith("--") and "=" in a else a for a in args
    ]
    values += [v for k, v in environ.items() if k.startswith(ENV_PREFIX)]
    found = [
        part.strip() for value in values for part in value.split(",") if "://" in part
    ]
    return list(dict.fromkeys(found))


def register_command_line(args: Sequence[str], environ: Mapping[str, str]) -> None:
    """Register every URL of a command line and of the CLI's environment variables.

    :param args: the command line after the program name.
    :param environ: the environment.
    """
    register_urls(*command_line_urls(args, environ))


class RedactingStream:
    """A text stream that redacts what is written to it (:func:`redact`).

    :param stream: the stream written to (stdout, stderr).
    """

    def __init__(self, stream: IO[str]) -> None:
        """Wrap ``stream``."""
        self._stream = stream

    def write(self, text: str) -> int:
        """Write the redacted text.

        :param text: what a console writes (a whole rendered print).
        :return: the characters of ``text`` (as if all were written).
        """
        self._stream.write(redact(text))
        return len(text)

    def flush(self) -> None:
        """Flush the wrapped stream."""
        self._stream.flush()

    def isatty(self) -> bool:
        """Whether the wrapped stream is a terminal.

        :return: its ``isatty()`` (False when it has none).
        """
        return bool(getattr(self._stream, "isatty", lambda: False)())

    def fileno(self) -> int:
        """The wrapped stream's file descriptor (rich asks for the terminal's size).

        :return: its ``fileno()``.
        """
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        """Name the wrapped stream's text codec, utf-8 when it names none.

        :return: the encoding.
        """
        return getattr(self._stream, "encoding", None) or "utf-8"


def redact(text: str, urls: Optional[Iterable[str]] = None) -> str:
    """``text`` with each configured URL shortened and each secret part replaced.

    :param text: an error text, log message or traceback.
    :param urls: the URLs to hide (None: those registered with :func:`register_urls`).
    :return: the text; whole URLs become ``scheme://host/…``, any other occurrence of a
        part of :func:`secret_fragments` becomes :data:`REDACTED`.
    """
    if urls is None:
        with _LOCK:
            known, fragments = sorted(_URLS, key=len, reverse=True), list(_FRAGMENTS)
    else:
        known = sorted(set(urls), key=len, reverse=True)
        fragments = sorted(
            {f for url in known for f in secret_fragments(url)},
            key=lambda f: (-len(f), f),
        )
    for url in known:
        text = text.replace(url, redacted_url(url))
    for fragment in fragments:
        text = text.replace(fragment, REDACTED)
    return text


class RedactingFilter(logging.Filter):
    """A logging filter that redacts a record's message, arguments and traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drops it.

        :param record: the record.
        :return: True.
        """
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # arguments not matching the format
            message = str(record.msg)
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def install_log_redaction() -> None:
    """Add one :class:`RedactingFilter` to every handler of the root logger.

    And to ``logging.lastResort``, which prints warnings when no handler is configured
    (every command but ``mcp``).

    Handler filters see every record that reaches them (a logger's own filters do not
    see its children's records), whichever library logged it.
    """
    handlers = list(logging.getLogger().handlers)
    if logging.lastResort is not None:  # what logs when no handler is configured
        handlers.append(logging.lastResort)
    for handler in handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
