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

"""Memos bounded by the text they hold, not only by their entry count.

Manifests are written by anyone. A memo keyed by manifest text (a schema, a type term, a
mech's body) and bounded only by entries keeps whatever it was given alive: 4,096 entries
of a 2.5 MB mech body are 10 GB. A :class:`BoundedMemo` keeps an entry only when the
characters of its key and value together are at most ``max_chars``; it holds at most
``entries`` entries and ``total_chars`` characters, and is emptied when either would be
passed (a miss only costs time, never correctness). So what it keeps is at most
``min(entries x max_chars, total_chars)`` characters (each at most 4 bytes in a ``str``),
plus a fixed overhead per entry, whatever the inputs. A call too large to keep is computed
again each time, with the same result.

Characters are counted by :func:`text_chars`: ``str`` and ``bytes``, through tuples,
lists and the slots of records (the model's frozen dataclasses); numbers and ``None``
count 0. A memo of an expensive check over long text can instead key by
:func:`digest_key` (a sha2-256 of a long text), which keeps every key small and every call
memoised.

Pure Python (no framework import): the domain stays runnable without the agent.
"""

import hashlib
from functools import update_wrapper
from typing import (
    Any,
    Callable,
    Dict,
    Hashable,
    NamedTuple,
    Protocol,
    Tuple,
    TypeVar,
    cast,
)

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

#: texts at most this long are their own memo key in :func:`digest_key` (longer: sha2-256)
DIGEST_KEY_OVER = 1 << 12

_MISSING = object()


class MemoInfo(NamedTuple):
    """Counters of a memo, as ``functools.lru_cache``'s ``cache_info()`` names them.

    :param hits: calls answered from the memo.
    :param misses: calls computed.
    :param maxsize: entries it may hold.
    :param currsize: entries it holds.
    """

    hits: int
    misses: int
    maxsize: int
    currsize: int


def text_chars(value: Any) -> int:
    """Characters of text a value holds (its ``str`` and ``bytes``).

    :param value: a memo key or value: text, a tuple or list, a record with
        ``__slots__`` (summed through), anything else (0).
    :return: the count.
    """
    if isinstance(value, (str, bytes)):
        return len(value)
    if isinstance(value, (tuple, list)):
        return sum(text_chars(item) for item in value)
    slots = getattr(type(value), "__slots__", ())
    if isinstance(slots, str):
        slots = (slots,)
    return sum(text_chars(getattr(value, name, None)) for name in slots)


def digest_key(args: Tuple[Any, ...]) -> Hashable:
    """A small memo key for calls with one text argument: the text, or its sha2-256.

    :param args: the call's arguments, one ``str``.
    :return: the text itself when at most :data:`DIGEST_KEY_OVER` characters, else its
        length and the 32-byte sha2-256 of its UTF-8 form ("surrogatepass": any ``str``).
    """
    (text,) = args
    if len(text) <= DIGEST_KEY_OVER:
        return text
    return len(text), hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class BoundedMemo:
    """A dict of results bounded by entries and by the characters it holds.

    :param entries: entries held at most (emptied when full).
    :param max_chars: an entry whose key and value hold more characters is not kept.
    :param total_chars: characters held at most (emptied when a new entry would pass it);
        by default ``entries x max_chars``.
    """

    __slots__ = ("entries", "max_chars", "total_chars", "held", "store")

    def __init__(self, entries: int, max_chars: int, total_chars: int = 0) -> None:
        """Start empty.

        :param entries: entries held at most.
        :param max_chars: characters of key and value an entry may hold.
        :param total_chars: characters held at most (0: ``entries x max_chars``).
        """
        self.entries = entries
        self.max_chars = max_chars
        self.total_chars = total_chars or entries * max_chars
        self.held = 0
        self.store: Dict[Hashable, Any] = {}

    def clear(self) -> None:
        """Forget every entry."""
        self.store.clear()
        self.held = 0

    def get(self, key: Hashable, default: Any = None) -> Any:
        """Look a key up.

        :param key: the key.
        :param default: returned when absent.
        :return: the kept value, or ``default``.
        """
        return self.store.get(key, default)

    def put(self, key: Hashable, value: Any, chars: int = -1) -> bool:
        """Keep an entry, unless it holds too much text.

        :param key: the key.
        :param value: its value.
        :param chars: characters the entry holds (-1: :func:`text_chars` of both).
        :return: whether it was kept.
        """
        if chars < 0:
            chars = text_chars(key) + text_chars(value)
        if chars > self.max_chars:
            return False
        if len(self.store) >= self.entries or self.held + chars > self.total_chars:
            self.clear()
        self.store[key] = value
        self.held += chars
        return True


class Memoised(Protocol[R_co]):
    """A function memoised by :func:`bounded_memo`.

    Called with positional arguments only; ``cache_clear`` and ``cache_info`` as
    ``functools.lru_cache`` offers them, ``memo``, where the results are kept, and
    ``__wrapped__``, the function itself.
    """

    memo: BoundedMemo
    __wrapped__: Callable[..., Any]

    def __call__(self, *args: Any) -> R_co:
        """Return the function's result for these arguments, from the memo when kept.

        :param args: positional arguments (hashable, or made hashable by ``key``).
        """

    def cache_clear(self) -> None:
        """Forget every result and reset the counters."""

    def cache_info(self) -> MemoInfo:
        """Return the counters: hits, misses, entries at most, entries held."""


def bounded_memo(
    entries: int,
    max_chars: int,
    total_chars: int = 0,
    key: "Callable[[Tuple[Any, ...]], Hashable] | None" = None,
    size: "Callable[[Hashable, Any], int] | None" = None,
) -> Callable[[Callable[..., R]], Memoised[R]]:
    """Decorate a pure function with a memo bounded in entries and characters.

    The characters of an entry are those of its key (the arguments, or what ``key``
    makes of them) and of the result (:func:`text_chars`), or what ``size`` says when the
    function knows better (at least as many: the bound rests on it). A hit costs one dict lookup
    more than ``functools.lru_cache`` (a Python call, where that cache is in C).

    :param entries: entries kept at most.
    :param max_chars: a call whose key and result hold more characters is not kept.
    :param total_chars: characters kept at most (0: ``entries x max_chars``).
    :param key: call arguments -> memo key (None: the arguments; :func:`digest_key`
        keeps long texts out of the memo).
    :param size: (memo key, result) -> the characters they hold (None: :func:`text_chars`
        of both).
    :return: the decorator.
    """

    def decorate(function: Callable[..., R]) -> Memoised[R]:
        memo = BoundedMemo(entries, max_chars, total_chars)
        lookup = memo.store.get  # the store is only ever cleared, never replaced
        keep = memo.put
        hits = misses = 0

        def call(*args: Any) -> Any:
            nonlocal hits, misses
            at = args if key is None else key(args)
            result = lookup(at, _MISSING)
            if result is _MISSING:
                misses += 1
                result = function(*args)
                keep(at, result, -1 if size is None else size(at, result))
                return result
            hits += 1
            return result

        def cache_clear() -> None:
            nonlocal hits, misses
            memo.clear()
            hits = misses = 0

        def cache_info() -> MemoInfo:
            return MemoInfo(hits, misses, memo.entries, len(memo.store))

        memoised: Any = update_wrapper(call, function)
        memoised.memo = memo
        memoised.cache_clear = cache_clear
        memoised.cache_info = cache_info
        return cast(Memoised[R], memoised)

    return decorate
