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

"""Short words that name a secret and are also ordinary words ask only when qualified.

A tool whose argument asks for a secret is refused by the MCP server, so a false
positive denies an ordinary tool to its users (adv29u F5): ``pin`` (to pin a version),
``pk`` (a primary key, ``p_k`` in a formula, the Cyrillic ``РК``), ``OTP`` (one-time
programmable memory) and ``2FA`` (whether it is on) ask for a secret only with words
that make them one (``your PIN``, ``PIN code``, ``enter the pin``, ``wallet pk``), or
as a whole argument name (``pk``, ``otp``).
"""

import unicodedata

import pytest
from mech_catalogue_core.model.untrusted_text import (
    expression_marks_spaced,
    other_script_words_kept,
    secret_arguments,
    secret_asked,
)

#: ordinary tool descriptions that ask for nothing
ORDINARY = [
    # machine learning
    "Pin the model version to reproduce results",
    "Pins the random seed and the tokenizer revision",
    "p_k is the probability of class k",
    "Set p*k for the scale",
    "x ~ N(0, 1) and p~k as an approximation",
    "Returns softmax scores p_k for k in 1..K",
    "the loss is -sum_k y_k log p_k",
    "scale factor p\\_k of the k-th layer",
    "weights w^k and biases b^k",
    "precision at k (P@k) and recall at k (R@k)",
    "the product p\u00b7k and the ratio p\u00d7k",
    "p\uff3fk and p\uff0ak in full-width notation",
    # finance and prediction markets
    "PK ratio of the portfolio",
    "Forecasts the PK election turnout (Pakistan)",
    "Probability that the market resolves YES; pin the odds to two decimals",
    "Price a put option with strike K and spot price p",
    "Whether 2FA is enabled on the exchange account",
    "The OTP memory of the hardware wallet chip is read-only",
    "Over-the-top (OTP) streaming revenue per quarter",
    # databases
    "Fetch the order whose pk is given",
    "pk of the row to update",
    "Primary key (pk) of the customer record",
    "A list of pks to delete",
    "id or pk of the record",
    # banking documents that ask for nothing
    "Counts wrong PIN attempts per ATM",
    "Whether a card is blocked after three wrong PIN entries",
    "Reports how many PIN resets a branch handled",
    "Explains the PIN policy of the bank",
    # other scripts
    "\u041d\u0430\u043b\u043e\u0433\u043e\u0432\u044b\u0439 "
    "\u043a\u043e\u0434\u0435\u043a\u0441 \u0420\u041a",  # Tax code of the RK
    "\u0421\u0442\u043e\u043b\u0438\u0446\u0430 \u0420\u041a \u2014 "
    "\u0410\u0441\u0442\u0430\u043d\u0430",  # Capital of the RK: Astana
    "\u049a\u0420 \u0437\u0430\u04a3\u043d\u0430\u043c\u0430\u0441\u044b",  # Kazakh
    "\u0399\u03a3\u03a4\u039f\u03a1\u0399\u0391 \u03a1\u039a",  # Greek capitals
    "\u03c0\u03b9\u03bd\u03b1\u03ba\u03b1\u03c2 \u03c4\u03b9\u03bc\u03ce\u03bd",  # Greek
    "\u13e2\u13e6",  # Cherokee
    "\u13a0\u13cd\u13a6\u13ef \u13e2\u13e6",  # Cherokee prose
    "List your pins on the board",
    # whole names that are no secret
    "pin",
    "2fa",
    "pinned",
    "spin",
]

#: secret requests, with the words each is found by
SECRETS = {
    "card PIN": "card pin",
    "Enter your PIN to confirm": "enter your pin",
    "enter the pin": "enter the pin",
    "the 4-digit PIN of the card": "4 digit pin",
    "PIN code of the SIM": "pin code",
    "pinCode": "pin code",
    "user_pin": "user pin",
    "Paste your pk here": "paste your pk",
    "walletPk": "wallet pk",
    "pk_hex": "pk hex",
    "the signer pk": "signer pk",
    "pk": "pk",
    "PK": "pk",
    "otp": "otp",
    "the OTP sent by SMS": "otp sent",
    "OTP code": "otp code",
    "your 2FA code": "your 2 fa",  # camelCase split
    "**P**IN code": "pin code",  # emphasis: a person sees "PIN code"
    "Paste your P*I*N": "paste your pin",
    "your ~~P~~IN code": "your pin",  # strikethrough: a person sees "PIN" struck
    "your \u0420K": "your pk",  # mixed scripts: a look-alike
    # a word of another script among English words reads as the English word (adv29x)
    "your \u0420\u041a": "your pk",  # Cyrillic
    "Enter your \u03a1\u0399\u039d": "enter your pin",  # Greek capitals
    "\u03a1\u0399\u039d code": "pin code",
    "The \u041e\u0422\u0420 sent by SMS": "otp sent",
    "\u0410\u0420\u0406 \u041a\u0415\u0423": "api key",  # all-Cyrillic phrase
    "\u0399\u039d\u03a4 \u0391\u03a1\u0399 \u039a\u0395\u03a5": "api key",  # Greek
    "\u0440\u0430ssw\u043erd": "password",
    "\u13e2\u13a1\u13a5\u13d9\u13aa\u13a2\u13ac key": "private key",  # Cherokee words
}


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_asks_for_nothing(text: str) -> None:
    """ML, finance, databases, banking, math notation and other scripts: no secret."""
    assert secret_asked(text) is None, text


@pytest.mark.parametrize("text, words", list(SECRETS.items()), ids=list(SECRETS))
def test_secret_requests_are_found(text: str, words: str) -> None:
    """A qualified short word, a whole name and a look-alike phrase each ask."""
    assert secret_asked(text) == words, text


def test_an_argument_called_pk_asks_and_one_called_pin_does_not() -> None:
    """``pk`` is a private key in wallet code; ``pin`` pins a file."""
    schema = {
        "properties": {
            "pk": {"type": "string"},
            "pin": {"type": "boolean", "description": "pin the file to IPFS"},
            "order": {"type": "string", "description": "the pk of the order"},
            "code": {"type": "string", "description": "your PIN code"},
        }
    }
    assert secret_arguments(schema) == (("pk", "pk"), ("code", "your pin"))


def test_marks_inside_an_expression_are_spaced_and_emphasis_kept() -> None:
    """``p_k``, ``p^k`` and a lone ``p*k`` are two symbols; ``P*I*N`` is emphasis."""
    assert expression_marks_spaced("p_k p\\_k p^k p*k p~k") == "p k p k p k p k p k"
    assert expression_marks_spaced("P*I*N **P**IN a*b*c ~~p~~k") == (
        "P*I*N **P**IN a*b*c ~~p~~k"
    )
    assert expression_marks_spaced("_p_ *k* x_") == "_p_ *k* x_"
    assert expression_marks_spaced("") == ""


def test_every_compatibility_form_of_an_expression_mark_is_spaced() -> None:
    """Every character the rendered reading folds to ``_``, ``^``, ``*`` or ``~`` is spaced."""
    forms = [
        chr(code)
        for code in range(0x80, 0x110000)
        if unicodedata.normalize("NFKC", chr(code)) in ("_", "^", "*", "~")
    ]
    assert len(forms) >= 8
    for form in forms:
        assert expression_marks_spaced(f"p{form}k") == "p k", unicodedata.name(form)


def test_words_of_one_other_script_are_kept_and_the_rest_folded() -> None:
    """All-Cyrillic and all-Cherokee words stay; mixed words and Latin forms fold."""
    assert other_script_words_kept("\u0420\u041a") == "\u0420\u041a"
    assert other_script_words_kept("\u13e2\u13e6") == "\u13e2\u13e6"
    assert other_script_words_kept("\u0420K \U0001d429\u1d0b") == "PK pk"
    assert other_script_words_kept("\u0420\u0391") == "PA"  # Cyrillic with Greek
    assert other_script_words_kept("\U0001f17f\U0001f17a") == "PK"  # symbols fold
    assert other_script_words_kept("plain pk") == "plain pk"


@pytest.mark.parametrize(
    "text, spaced",
    [
        # a * the parser pairs with one further away is emphasis: kept (adv29x F6)
        ("Enter your P*IN code*", "Enter your P*IN code*"),
        ("*your P*IN", "*your P*IN"),
        ("> quoted\n> the O*TP sent*", "> quoted\n> the O*TP sent*"),
        ("- item\n- your P*IN code*", "- item\n- your P*IN code*"),
        ("# your P*IN code* #", "# your P*IN code* #"),
        ("![your P*IN code*](u)", "![your P*IN code*](u)"),
        ("your P\uff0aIN code\uff0a", "your P\uff0aIN code\uff0a"),
        # GitHub pairs single ~ as strikethrough: a ~ paired further away is kept
        ("your P~IN code~", "your P~IN code~"),
        # a * the parser leaves as a character is spaced
        ("p*k and *x", "p k and *x"),
        ("p*k\n\nq*", "p k\n\nq*"),  # no pairing across paragraphs
        ("p\\*k here*", "p  k here*"),  # escaped
        ("`p*k` here*", "`p k` here*"),  # in code
        ("p**k", "p  k"),
        ("p~k and ~x", "p k and ~x"),
        ("p*k\r\nq", "p k\nq"),
    ],
)
def test_a_mark_is_spaced_where_the_parser_shows_it(text: str, spaced: str) -> None:
    """A ``*`` or ``~`` between letters is a space only where no emphasis takes it."""
    assert expression_marks_spaced(text) == spaced


@pytest.mark.parametrize(
    "text",
    [
        "Enter your P*IN code*",
        "> Enter *your P*IN",
        "1. Paste your p*k here*",
        "Enter the O~TP sent by SMS~",
        "Enter your P\uff0aIN code\uff0a",
    ],
)
def test_a_short_secret_word_parted_by_emphasis_asks(text: str) -> None:
    """Emphasis from inside a word to a later mark leaves the word whole to a reader."""
    assert secret_asked(text) is not None


def test_a_word_of_another_script_is_kept_only_among_words_of_it() -> None:
    """Among English words a Greek or Cyrillic word is read as its look-alike."""
    greek_pin = "\u03a1\u0399\u039d"
    assert other_script_words_kept(greek_pin) == greek_pin  # no words around it
    assert other_script_words_kept(f"your {greek_pin}") == "your PIN"
    assert other_script_words_kept(f"{greek_pin} code") == "PIN code"
    # one neighbour of another script is enough to read it as a look-alike, and a
    # Greek word all of letters like Latin ones after it is read as Latin too (fix29ya)
    assert other_script_words_kept(f"your {greek_pin} \u03bd\u03b1\u03b9") == (
        "your PIN vai"
    )
    # among its own script's words, digits and punctuation between: kept
    kazakh = "\u0421\u0442\u043e\u043b\u0438\u0446\u0430 \u0420\u041a \u2014 1997"
    assert other_script_words_kept(kazakh) == kazakh
    # a Cyrillic word next to a Greek one is among another script's words (both fold)
    assert other_script_words_kept("\u0420\u041a \u03b1\u03b2") == "PK a\u03b2"


#: short words whose context makes them secrets (adv29x F3): possessives, owners, digits
SECRETS_IN_CONTEXT = {
    "Type the debit card's PIN": "card s pin",
    "Your banking PIN": "banking pin",
    "The device PIN to unlock it": "device pin",
    "Your Trezor PIN": "trezor pin",
    "The account's OTP": "account s otp",
    "the user's PIN": "user s pin",
    "Your new PIN": "your new pin",
    "OTP (6 digits)": "otp 6 digits",
    "PIN, 4 digits": "pin 4 digits",
    # an owner asks even where the text names an ordinary context too
    "Enter the card PIN to confirm the delivery address": "card pin",
    "Wallet pk of the row's owner": "wallet pk",
    "The OTP sent by SMS; status is returned": "otp sent",
}

#: short words in ordinary contexts, with words that would otherwise qualify (adv29x F4)
ORDINARY_IN_CONTEXT = [
    "Enter the pin number of the header pins to read",
    "Your pin on the map is shown in red",
    "Place your pin on maps of the city",
    "The 6 digit PIN code of the postal address",
    "Your PIN code (India Post zip code) for shipping",
    "Provide the pk of the record",
    "Send the pk list of rows to delete",
    "Paste the pk from the database table",
    "Your 2FA status",
    "Whether your 2FA is enabled",
    "Input the OTP fuse bits",
    "Enter the pin to toggle high",
]


@pytest.mark.parametrize(
    "text, words", list(SECRETS_IN_CONTEXT.items()), ids=list(SECRETS_IN_CONTEXT)
)
def test_an_owner_possessive_or_digits_make_a_short_word_a_secret(
    text: str, words: str
) -> None:
    """What a PIN belongs to asks whatever else the text says."""
    assert secret_asked(text) == words, text


@pytest.mark.parametrize("text", ORDINARY_IN_CONTEXT)
def test_a_board_map_address_table_or_setting_makes_it_ordinary(text: str) -> None:
    """``your pin`` on a map, ``enter the pin`` of a GPIO line: nothing asked."""
    assert secret_asked(text) is None, text


@pytest.mark.parametrize(
    "text",
    [
        "Paste the private key of the row",
        "The wallet's password for the map",
        "Your seed phrase; status is returned",
        "API key of the database (GPIO)",
    ],
)
def test_an_ordinary_context_never_excuses_a_long_secret_word(text: str) -> None:
    """Only the short words are read in context: a private key is asked anywhere."""
    assert secret_asked(text) is not None, text
