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

"""Printing results and failures, as rich text for people or JSON for programs."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import (
    IO,
    TYPE_CHECKING,
    Any,
    Callable,
    Iterable,
    NoReturn,
    Optional,
    Union,
)

import click

from . import EXIT_INVALID

# pylint: disable=import-outside-toplevel
# Imported where used, not here: every command, `--help` too, imports this module first,
# and the library's exporters package (js_integers' parent), the look-alike tables
# (untrusted_text) and rich took about 0.7 s of the CLI's start-up (`python -X importtime`).
if TYPE_CHECKING:
    from mech_catalogue_core.model.problems import Problem
    from rich.console import Console
    from rich.text import Text

#: Width of tables written to a pipe or file: wide enough that no CID, digest, address or
#: description is cut (rich otherwise assumes 80 columns when not on a terminal).
PIPE_WIDTH = 400


#: begins each row of a manifest's text after its first, outside a table's cells: no
#: manifest text starts a line of the output, where it would read as one of our lines
#: (a fact such as ``price: 1``, or a match). Found by the adversarial review adv29f.
CONTINUATION = "  \u2506 "
#: a line break in a name, a title or a problem's line, shown where it was
LINE_BREAK = " \u23ce "
#: the narrowest rows :func:`print_wrapped` makes (characters): on a terminal narrower
#: than this plus the marker the terminal wraps them again
MIN_ROW_WIDTH = 16


def one_line(text: str) -> str:
    """``text`` with each line break (any ``str.splitlines`` knows) shown as :data:`LINE_BREAK`.

    :param text: a name, title or problem line, cleaned already.
    :return: the text on one line.
    """
    return LINE_BREAK.join(text.splitlines()) if text else text


def untrusted(text: str, label: bool = False) -> Text:
    """Manifest text as a table cell or line shows it: cleaned and capped, no markup.

    Rich reads ``[...]`` in a plain string as console markup (``[conceal]``, ``[black
    on black]`` hide text in a terminal); a :class:`rich.text.Text` is shown as it is, so
    the text keeps its own ``[`` and ``<`` (``list[dict]``), and only invisible and
    control characters (ANSI escapes among them) are removed.

    :param text: a name, title or description from a manifest (untrusted).
    :param label: True for a name or title: capped at 128 characters and on one line
        (:func:`one_line`); else capped at 1,024, its line breaks kept (a table cell
        holds them; elsewhere print it with :func:`print_wrapped`).
    :return: ``untrusted_text.for_person`` (or ``label_for_person``) of it, as plain Text.
    """
    from mech_catalogue_core.model.untrusted_text import for_person, label_for_person
    from rich.text import Text

    return Text(one_line(label_for_person(text)) if label else for_person(text))


def print_wrapped(
    console: Console, lead: Union[str, Text], body: Text, indent: str = ""
) -> None:
    """Print ``lead`` then ``body`` (a manifest's text) as rows the console's width holds.

    The rows are wrapped here, by rich at the console's width, not by the terminal, and
    every row after the first begins with ``indent`` and :data:`CONTINUATION`: neither
    the text's own line breaks nor its length can start a line with the manifest's
    words. (On a terminal the rows fit; off one the width is ``$COLUMNS`` or
    :data:`PIPE_WIDTH`.)

    :param console: where.
    :param lead: what comes first on the first row (ours: a fact's name, a mech's name).
    :param body: the text, from :func:`untrusted`.
    :param indent: put before the marker (the lead's own indent, for a fact).
    """
    from rich.cells import cell_len
    from rich.text import Text

    marker = indent + CONTINUATION
    whole = Text(lead) if isinstance(lead, str) else lead.copy()
    whole.append_text(body)
    width = max(console.width - cell_len(marker), MIN_ROW_WIDTH)
    for number, row in enumerate(whole.wrap(console, width, overflow="fold")):
        shown = row if number == 0 else Text(marker).append_text(row)
        console.print(shown, crop=False, soft_wrap=True)


def console_on(file: IO[str]) -> Console:
    """Return a rich console on ``file``: the terminal's width there, else ``$COLUMNS``.

    Off a terminal the width is ``$COLUMNS`` when it is a positive number (a person or a
    test saying how wide), else :data:`PIPE_WIDTH`.

    :param file: ``sys.stdout`` or ``sys.stderr`` (or any text stream).
    :return: the console (no highlighting; long lines are not wrapped); on stderr
        (failures, warnings) it writes through ``redaction.RedactingStream``: no secret
        of a configured URL is printed there. Results on stdout are data, left as they
        are (a CID in a gateway URL given on the command line stays in ``show``'s).
    """
    # pylint: disable-next=import-outside-toplevel,cyclic-import
    from rich.console import Console

    from .redaction import RedactingStream

    terminal = bool(getattr(file, "isatty", lambda: False)())
    columns = os.environ.get("COLUMNS", "")
    return Console(
        file=RedactingStream(file) if file is sys.stderr else file,  # type: ignore[arg-type]
        soft_wrap=True,
        highlight=False,
        width=(
            None
            if terminal
            else int(columns) if columns.isdigit() and int(columns) else PIPE_WIDTH
        ),
    )


class CliFailure(click.ClickException):
    """A failure the CLI reports and exits on with :data:`EXIT_INVALID`.

    :param code: machine-readable code (a problem code where one exists).
    :param message: one sentence naming what failed and what to do.
    :param problems: the problems behind it, if any.
    """

    exit_code = EXIT_INVALID

    def __init__(
        self, code: str, message: str, problems: Iterable[Problem] = ()
    ) -> None:
        """Store the code and problems with the message."""
        super().__init__(message)
        self.code = code
        self.problems = tuple(problems)


@dataclass
class Output:
    """Where a command writes: JSON on stdout, or rich text (errors on stderr).

    :param as_json: print JSON documents instead of text.
    """

    as_json: bool = False

    @property
    def console(self) -> Console:
        """Return a console on the current stdout (CliRunner swaps it).

        :return: a console on the current stdout (CliRunner swaps it).
        """
        return console_on(sys.stdout)

    @property
    def errors(self) -> Console:
        """Return a console on the current stderr.

        :return: a console on the current stderr.
        """
        return console_on(sys.stderr)

    def emit(
        self, data: Any, render: Optional[Callable[[Console], None]] = None
    ) -> None:
        """Print a result.

        :param data: the JSON-serialisable result (printed with ``--json``; integers
            beyond +-(2**53-1), which JavaScript cannot hold, are printed as decimal
            strings: ``exporters.js_integers``).
        :param render: draws the human view; default prints ``data`` as JSON.
        """
        if self.as_json or render is None:
            from mech_catalogue_core.exporters.js_integers import integers_as_text

            click.echo(
                json.dumps(
                    integers_as_text(data),
                    indent=2,
                    ensure_ascii=False,
                    sort_keys=False,
                )
            )
        else:
            render(self.console)

    def fail(self, failure: CliFailure) -> NoReturn:
        """Report a failure and exit with its code (``SystemExit``, never returns).

        :param failure: what failed (secrets of configured URLs are redacted).
        """
        # pylint: disable-next=import-outside-toplevel,cyclic-import
        from .redaction import redact  # keys -> output: imported here, not at the top

        if self.as_json:
            click.echo(
                json.dumps(
                    {
                        "ok": False,
                        "error": {
                            "code": failure.code,
                            "message": redact(failure.message),
                        },
                        "problems": [p.to_dict() for p in failure.problems],
                    },
                    indent=2,
                    ensure_ascii=False,
                )
            )
        else:
            from rich.markup import escape

            console = self.errors
            console.print(
                f"[bold red]error[/] {escape('[' + failure.code + ']')} ",
                end="",
                markup=True,
            )
            console.print(redact(failure.message), markup=False)
            for problem in failure.problems:
                if (problem.code, problem.message) != (failure.code, failure.message):
                    print_problem(console, problem)  # the headline already said it
        sys.exit(failure.exit_code)


def print_problem(console: Console, problem: Problem) -> None:
    """Print one problem as a line; its path is shown verbatim (`filter[id]` is no markup).

    :param console: where.
    :param problem: what (one line: severity, code, path, message).
    """
    from rich.markup import escape

    colour = "red" if problem.is_error else "yellow"
    where = f" {escape(one_line(problem.path))}" if problem.path else ""
    console.print(
        f"  [{colour}]{problem.severity}[/] {problem.code}{where}: ",
        end="",
        markup=True,
    )
    console.print(one_line(problem.message), markup=False)
