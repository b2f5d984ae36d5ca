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

"""The English words of secrets and of asking for them, each defined once.

Every check that reads a text for a secret takes its words from here: the terms that
name a secret wherever they stand (:data:`SECRET_TERMS`, read by
:data:`.untrusted_text.SECRET_PATTERN`), the abbreviations that name one only as an
argument's whole name (:data:`SECRET_ARGUMENT_NAME`), whose a secret is when a text
asks the reader for it (:data:`READER_HOLDERS`, :data:`SECRET_HOLDERS`) and the verbs
that tell a reader to hand one over (:data:`REQUEST_VERBS`, :data:`HANDING_VERBS`).
The short words that are also ordinary words (``pin``, ``pk``, ``OTP``, ``WIF``) and
the rules reading the words around them are :mod:`.short_secret_words`'.

Every pattern is ASCII, matched case-insensitively on a text's words as
:func:`.short_secret_words.words_of` writes them: one space between words, an
apostrophe or a hyphen read as a space (``the user's`` is ``the user s``).
"""

import re
from typing import Iterable


def alternation(parts: Iterable[str]) -> str:
    """One non-capturing regular expression matching any of ``parts``, in order."""
    return "(?:" + "|".join(parts) + ")"


#: whose a secret is when a text asks its reader for it: the reader's own or a user's
#: (``your``, ``the user's``); what the short words' rules read
READER_HOLDERS = ("your", "ur", "yr", "my", "his", "her", "their", "users?(?: s)?")
#: whose a secret is in prose that is not an argument's: the reader's, or someone's a
#: tool serves (``the caller's``, ``the account holder's``)
SECRET_HOLDERS = READER_HOLDERS + (
    "callers?(?: s)?",
    "customers?(?: s)?",
    "clients?(?: s)?",
    "owners?(?: s)?",
    "account holders?(?: s)?",
)
#: verbs that ask a reader to hand something over: a request when the word they take
#: is a secret's (what the short words' rules read)
REQUEST_VERBS = (
    "enter",
    "type",
    "paste",
    "input",
    "submit",
    "provide",
    "share",
    "reveal",
    "send",
    "insert",
    "give",
    "supply",
    "tell",
    "disclose",
    "confirm",
    "key in",
    "fill in",
    "read out",
)
#: verbs by which prose tells its reader to hand something over (imperatives: the
#: third person describes what a tool does, ``Hashes the password``)
HANDING_VERBS = REQUEST_VERBS + (
    "include",
    "put",
    "pass",
    "add",
    "attach",
    "upload",
    "forward",
    "copy",
    "spell out",
    "(?:reply|respond|answer) with",
    "ask(?: the user| them| him| her| me| us)? for",
    "asks(?: the user)? for",
)
#: verbs by which prose tells its reader to place a secret in what it writes (adv29zu2
#: T6: "Append the mnemonic after the port name", "Follow the port with the keystore
#: password"): with :data:`HANDING_VERBS`, what makes a secret named in a clause asked
#: for, whoever's it is (:mod:`.secret_requests`, :mod:`.squashed_names`)
PLACING_VERBS = (
    "append",
    "prepend",
    "write(?: down| out)?",
    "place",
    "(?:follow|end|finish|close|complete|suffix|prefix|start|begin)(?: [a-z0-9]+){0,3}?"
    " with",
)
#: words after a secret that make it a subject, not a thing asked for: they name what
#: belongs to it (``the API key's rate limit``, ``password reset``,
#: ``seed-phrase-validator``); read after a secret in prose
#: (:data:`.secret_requests.SECRET_AS_SUBJECT`) and in a tool's name
#: (:mod:`.squashed_names`)
SECRET_SUBJECT_WORDS = (
    "resets?",
    "strength",
    "polic(?:y|ies)",
    "hash(?:es|ing|ed)?",
    "managers?",
    "generators?",
    "generation",
    "rotations?",
    "expiry",
    "expiration",
    "lengths?",
    "rates?",
    "limits?",
    "counts?",
    "usage",
    "quotas?",
    "metadata",
    "scopes?",
    "permissions?",
    "validation",
    "validators?",
    "checks?",
    "checkers?",
    "breach(?:es)?",
    "leak(?:s|ed)?",
    "requirements?",
    "rules?",
    "complexity",
    "entropy",
    "formats?",
    "protected",
    "protection",
    "security",
    "fingerprints?",
    "prefix(?:es)?",
    "ids?",
    "names?",
    "labels?",
    "types?",
    "owners?",
    "creation",
    "revocation",
    "derivation",
    "hints?",
    "docs",
    "guides?",
    "wordlists?",
    "standards?",
    "specs?",
    # what warns of losing one (adv29zw2 H1: ``seed_phrase_safety_guide``)
    "safety",
    "hygiene",
    "scams?",
    "phishing",
    "awareness",
)

#: secrets a mech never needs, as a tool's name spells them (:mod:`.squashed_names`,
#: read with their spaces removed and letters respelled): each is a secret in prose too
#: (:data:`SECRET_TERMS`); a name holding one asks for it unless a
#: :data:`SECRET_SUBJECT_WORDS` word follows
NAME_SECRET_NOUNS = (
    "seed phrase",
    "seed words",
    "wallet seed",
    "recovery phrase",
    "recovery words",
    "secret recovery",
    "secret phrase",
    "backup phrase",
    "private key",
    "privkey",
    "secret key",
    "wallet key",
    "signing key",
    "signer key",
    "wallet password",
    "wallet passphrase",
    "keystore json",
    "keystore file",
    "keystore password",
    "xprv",
    "xpriv",
    "wallet import format",
    "wallet secret",
)
#: secrets that are ordinary words too (a memory aid, a Java keystore, a random seed, a
#: count of words) or that a tool names as its subject (``password_strength``,
#: ``api_key_usage``): a name asks for one only with a holder or a placing verb before it
#: or a place after it (``#`` is a mnemonic's length, :data:`MNEMONIC_LENGTH`); each
#: but ``seed`` (a random one in prose) is a secret in prose too
NAME_ORDINARY_SECRET_NOUNS = (
    "mnemonic",
    "mnemonics",
    "keystore",
    "seed",
    "# words",
    "password",
    "passphrase",
    "api key",
    # a private key's and a one-time password's abbreviations (adv29zw2: ``pk_here``,
    # ``otp_code_here``)
    "pk",
    "otp",
    "otp code",
)

#: a secret named, which the instruction warning flags as it flags an instruction
#: (``untrusted_text.INSTRUCTION_PATTERNS``): a mention is no request nor order
#: (``password strength score``), so schema withholding leaves it (fix29zr)
SECRET_MENTION_PATTERNS = (
    r"(private|secret|wallet|signing) keys?",
    r"(seed|recovery|mnemonic) (phrase|words)",
    r"mnemonic",
    r"api keys?",
    r"passwords?",
)

#: the lengths of a BIP-39 mnemonic, in words (BIP-39: 12 to 24 words, a multiple of 3)
MNEMONIC_LENGTH = r"(?:12|15|18|21|24|twelve|fifteen|eighteen|twenty one|twenty four)"

#: what ``secret`` qualifies when it is a story's, a game's or a cook's, not a credential
#: (``Secret Santa``, ``a secret garden``, ``the secret ingredient``: adv29yz K5); read
#: by :data:`SECRET_TERMS`
ORDINARY_SECRET_NOUN = (
    r"(?:santas?|ingredients?|recipes?|gardens?|agents?|service|society|societies|"
    r"levels?|rooms?|passages?|doors?|menus?|sauces?|weapons?|identit(?:y|ies)|"
    r"admirers?|histor(?:y|ies)|li(?:fe|ves)|worlds?|islands?|formulas?|missions?|"
    r"hideouts?|bases?|lairs?|paths?|trails?|spots?|beach(?:es)?|caves?|chambers?|"
    r"ballots?|police|tunnels?|stash(?:es)?|treasures?)"
)

#: terms that name a secret wherever they stand in an argument's name or description
#: (a tool's other text asks with them only with a request: :mod:`.secret_requests`).
#: A random ``seed``, ``max_tokens`` or a ``token`` count is no secret.
SECRET_TERMS = (
    # keys and the words that restore a wallet (BIP-39: "mnemonic sentence", "seed")
    r"private ?keys?|priv ?keys?|prv ?keys?|secret keys?|wallet keys?",
    rf"(?<!top )(?<!trade )secrets?(?! {ORDINARY_SECRET_NOUN}\b)",
    r"sign(?:ing|er) keys?|hex (?:private )?keys?|p ?key",
    r"seed ?(?:phrase|words)|wallet seeds?|recovery (?:phrase|words)|mnemonics?",
    r"restore (?:your|the|a) wallet|bip ?39",
    r"(?:backup|secret|wallet|bip ?39) (?:phrases?|words|codes?)",
    # a mnemonic by its length (BIP-39), said as such: "a 24-word phrase", "12 seed words"
    rf"{MNEMONIC_LENGTH} ?words? (?:phrases?|seeds?|mnemonics?|backups?)",
    rf"{MNEMONIC_LENGTH} (?:seed|recovery|secret|backup|mnemonic) words?",
    # ... or the reader's own (a summary "in 12 words" is no secret)
    rf"{alternation(READER_HOLDERS)} (?:(?:wallet|seed|recovery|backup|secret|metamask|"
    rf"ledger|trezor)(?: s)? )?{MNEMONIC_LENGTH} words",
    # ... or a wallet's, an account's (adv29zu2 T6: "the wallet's 24 words")
    rf"(?:wallet|account|seed|recovery|backup|metamask|ledger|trezor)(?: s)? "
    rf"{MNEMONIC_LENGTH} words",
    # BIP-32 extended private keys (xprv, tprv) and SLIP-0132's (yprv, zprv, uprv, vprv)
    r"[xtyzuv]privs?|[xtyzuv]prvs?|extended (?:private|priv) keys?",
    # Wallet Import Format (Bitcoin wiki, "Wallet import format"); the bare ticker-like
    # ``WIF`` is a short word (:mod:`.short_secret_words`)
    r"wallet import format|wif (?:keys?|private keys?|strings?|format)",
    # MetaMask's Secret Recovery Phrase ("recovery phrase" above); ``SRP`` is a short
    # word (the Secure Remote Password protocol shares it)
    # passwords and passphrases, a closed compound also written parted ("pass word")
    r"passwords?|passwd|pass (?:word|phrase)|passphrases?|pass ?codes?",
    r"keystore(?: json| files?)?|key ?files?",
    # tokens, cookies, credentials (RFC 6750 bearer tokens, RFC 6749 refresh tokens)
    r"api keys?|apikey|(?:openai|anthropic|api|access|auth|bearer|refresh|session) tokens?",
    r"credentials?|jwts?|json web tokens?",
    r"(?:session|auth|login|browser) cookies?|cookies? (?:header|value|string|jar)",
    # second factors: TOTP (RFC 6238), HOTP (RFC 4226), their shared secrets and seeds,
    # recovery and backup codes, the codes an authenticator shows or a text brings
    r"totp|hotp|mfa codes?|one time (?:passwords?|codes?)",
    r"(?:2 ?fa|mfa|otp|totp|hotp|authenticator) (?:secrets?|seeds?|keys?)",
    r"(?:recovery|backup) codes?",
    r"(?:sms|login|verification|authenticator|auth) codes?",
    r"codes? (?:from|in|on|of|shown (?:in|on|by)|generated by) (?:your |the |an? )?"
    r"(?:[a-z0-9]+ )?(?:authenticator|authy|2 ?fa|mfa)",
    # a payment card's verification value (PCI DSS glossary: CAV2/CVC2/CVV2/CID; CID is
    # left out, it is IPFS's content identifier)
    r"cvv2?|cvc2?|cav2|card verification (?:values?|codes?|numbers?)",
    r"card security codes?|security codes? (?:of|on|from) (?:your |the |a )?cards?",
)

#: a name's last word that makes it a login's or a wallet's abbreviated secret
#: (``db_pass``, ``wallet_sk``), read with :data:`NAME_ONLY_SECRET`
NAME_OWNER = (
    r"(?:user|admin|root|db|database|login|account|wallet|signer|signing|ssh|smtp|ftp|"
    r"mail|email|master|eth|evm|secret|private)"
)
#: abbreviations that name a secret only as an argument's name, whole or after a
#: :data:`NAME_OWNER` (a text's ``pass``, a language ``sk`` or a ticker ``WIF`` is
#: not one): ``pass``, ``passwd``, ``pwd`` (a password), ``sk``, ``prv``, ``priv``,
#: ``privkey`` (a private or secret key), ``xprv`` (BIP-32), ``wif`` (Bitcoin wiki's
#: Wallet Import Format), ``srp`` (MetaMask's Secret Recovery Phrase), ``mnem``,
#: ``cvv``, ``cvc`` (PCI DSS), ``otp_secret``, ``totp`` (RFC 6238); a digit may follow
#: (``pwd2``). ``pk``, ``otp``, ``wif`` and ``srp`` (``pk1``) are
#: :data:`.short_secret_words.SECRET_NAME`'s, read in any script but not as an
#: expression's letters (``p_k``)
NAME_ONLY_SECRET = (
    r"(?:pass|passwd|pwd|pw|sk|prv|priv|privkey|prv ?keys?|[xtyzuv]prv|wif|srp|mnem|"
    r"cvv|cvc|otp ?secret|totp|keystore|seed ?words|mnemonic ?words)[0-9]*"
)
#: abbreviations that name a secret as any name's last word (``user_pwd``)
NAME_END_SECRET = r"(?:passwd|pwd|privkey|prvkey|[xtyzuv]prv)[0-9]*"
#: an argument's whole name (its :func:`.short_secret_words.words_of`) that asks for a
#: secret by an abbreviation: matched with ``fullmatch``
SECRET_ARGUMENT_NAME = (
    rf"(?:{NAME_OWNER} )?{NAME_ONLY_SECRET}|(?:[a-z0-9]+ ){{0,2}}{NAME_END_SECRET}"
)
#: :data:`SECRET_ARGUMENT_NAME`, compiled (case ignored)
SECRET_NAME_PATTERN = re.compile(SECRET_ARGUMENT_NAME, re.IGNORECASE | re.ASCII)
