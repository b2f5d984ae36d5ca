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

"""The object under ``shared_state["mech_catalogue.tool_catalogue"]`` is immutable all the way down.

Another skill of the agent holds the same object as this skill's HTTP API and every other
consumer, so a hostile (or careless) consumer must not be able to change it for anyone:
here one walks everything reachable from an exposed catalogue (built by the real parser
from every manifest shape, with a rejected manifest's problems) and tries every way of
changing it that Python's public protocols offer. Out of scope, as for any Python object:
``object.__setattr__`` on a frozen instance, ``gc.get_referents`` and rebinding classes.
"""

import copy
import dataclasses
import pickle
from types import MappingProxyType
from typing import Any, Callable, Iterator, List, Tuple

import pytest
from mech_catalogue_core.catalogue.exposure import (
    ExposedCatalogue,
)
from mech_catalogue_core.manifest.parsing import (
    parse_manifest,
)
from mech_catalogue_core.model.catalogue import (
    STATUS_INVALID,
    Catalogue,
    Mech,
)
from mech_catalogue_core.model.tool import (
    Argument,
    MechRef,
    Tool,
)
from mech_catalogue_core.tests.manifest_shapes import (
    ALL_SHAPES,
    encode,
)

ATOMS = (str, int, float, bool, type(None), bytes)
EVIL = "evil"


def build_published() -> ExposedCatalogue:
    """Parse every manifest shape into a mech, add a rejected one and a collision.

    :return: the exposed catalogue.
    """
    mechs: List[Mech] = []
    documents = list(ALL_SHAPES.values()) + [b"{not json", ALL_SHAPES["kwargs"]]
    for mech_id, document in enumerate(documents, start=1):
        data = document if isinstance(document, bytes) else encode(document)
        result = parse_manifest(data)
        ref = MechRef(100, "legacy_mech_registry", "0x" + "ab" * 20, mech_id)
        mechs.append(
            Mech.from_manifest(
                ref,
                result.manifest,
                result.problems,
                digest="0x" + f"{mech_id:064x}",
                cid=f"bafy-{mech_id}",
                observed_block=7,
            )
        )
    catalogue = Catalogue.build(mechs)
    assert catalogue.mechs_with_status(STATUS_INVALID), "the rejected manifest is in"
    assert catalogue.collisions(), "two mechs offer the same tool"
    return ExposedCatalogue(catalogue, catalogue.digest(), "cd" * 32, 7, 1.0, 2)


def slot_names(obj: Any) -> Tuple[str, ...]:
    """List the slots of an object over its classes.

    :param obj: a slotted instance.
    :return: every slot name.
    """
    names: List[str] = []
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return tuple(n for n in names if n not in ("__weakref__", "__dict__"))


def children(obj: Any) -> Iterator[Any]:
    """Yield what an object holds.

    :param obj: a non-atomic reachable object.
    :yield: its items, keys and values, or attributes.
    """
    if isinstance(obj, (tuple, frozenset)):
        yield from obj
    elif isinstance(obj, MappingProxyType):
        yield from obj.keys()
        yield from obj.values()
    else:
        for name in slot_names(obj):
            yield getattr(obj, name)


def reachable(root: Any) -> List[Any]:
    """Walk everything reachable from ``root`` through items and attributes.

    :param root: the exposed catalogue.
    :return: every non-atomic object, each once.
    """
    seen, found, stack = set(), [], [root]
    while stack:
        obj = stack.pop()
        if isinstance(obj, ATOMS) or id(obj) in seen:
            continue
        seen.add(id(obj))
        found.append(obj)
        stack.extend(children(obj))
    return found


def refuses(action: Any) -> bool:
    """Run a mutation attempt.

    :param action: a callable trying to change something.
    :return: True when it raised (the change was refused).
    """
    try:
        action()
    except (AttributeError, TypeError):  # FrozenInstanceError is an AttributeError
        return True
    return False


def calling(obj: Any, method: str, *args: Any) -> Callable[[], Any]:
    """Defer a method call.

    :param obj: the object.
    :param method: the method's name (it may not exist).
    :param args: the arguments.
    :return: a callable making the call.
    """
    return lambda: getattr(obj, method)(*args)


def attacks(obj: Any) -> Iterator[Tuple[str, Any]]:
    """Every way to change ``obj`` through Python's public protocols.

    :param obj: a reachable object.
    :yield: ``(description, attempt)``.
    """
    yield "new attribute", lambda: setattr(obj, EVIL, 1)
    yield "vars()", lambda: vars(obj).clear()
    if isinstance(obj, tuple):
        if obj:
            yield "item assignment", calling(obj, "__setitem__", 0, EVIL)
            yield "item deletion", calling(obj, "__delitem__", 0)
        yield "append", calling(obj, "append", EVIL)
    elif isinstance(obj, MappingProxyType):
        key = next(iter(obj), EVIL)
        yield "item assignment", calling(obj, "__setitem__", key, EVIL)
        yield "item deletion", calling(obj, "__delitem__", key)
        for method in ("clear", "update", "pop", "popitem", "setdefault"):
            yield method, calling(obj, method)
    else:
        for name in slot_names(obj):
            yield f"set {name}", lambda n=name: setattr(obj, n, EVIL)
            yield f"delete {name}", lambda n=name: delattr(obj, n)


def test_only_immutable_containers_are_reachable() -> None:
    """Frozen slotted dataclasses, tuples and read-only mappings only: no list, dict, set or __dict__."""
    objects = reachable(build_published())
    kinds = {type(o) for o in objects}
    assert {Catalogue, Mech, Tool, Argument, MappingProxyType, tuple} <= kinds
    for obj in objects:
        assert not isinstance(obj, (list, dict, set, bytearray)), type(obj)
        assert not hasattr(obj, "__dict__"), f"{type(obj).__name__} has a __dict__"
        if not isinstance(obj, (tuple, frozenset, MappingProxyType)):
            params = getattr(type(obj), "__dataclass_params__", None)
            assert params is not None and params.frozen, type(obj)


def test_a_hostile_consumer_changes_nothing() -> None:
    """Every mutation attempt on every reachable object is refused; digest and JSON stay the same."""
    exposed = build_published()
    digest, text = exposed.catalogue.digest(), exposed.catalogue.to_json()
    objects = reachable(exposed)
    tried = 0
    for obj in objects:
        for what, attempt in attacks(obj):
            tried += 1
            assert refuses(attempt), f"{what} on {type(obj).__name__} succeeded"
    assert tried > 10 * len(objects) // 2
    assert exposed.catalogue.digest() == digest == exposed.catalogue_digest
    assert exposed.catalogue.to_json() == text


def test_the_index_cannot_be_cleared_for_everyone() -> None:
    """Issue #10: the lazily built index was a plain dict any skill could clear."""
    exposed = build_published()
    catalogue = exposed.catalogue
    key = catalogue.mechs[0].ref.key
    name = catalogue.tool_names()[0]
    index = catalogue._index  # pylint: disable=protected-access
    assert isinstance(index.by_key, MappingProxyType)
    for attempt in (
        calling(index.by_key, "clear"),
        calling(index.by_name, "clear"),
        calling(index.by_ref, "clear"),
        lambda: setattr(catalogue, "_index", None),
    ):
        assert refuses(attempt)
    assert catalogue.mech_by_key(key) is catalogue.mechs[0]
    assert catalogue.tools_named(name)


def test_json_accessors_hand_out_copies() -> None:
    """Schemas, defaults, examples and extras come out as fresh copies: changing them changes nothing."""
    exposed = build_published()
    catalogue = exposed.catalogue
    digest = catalogue.digest()
    for mech in catalogue.mechs:
        mech.extra.clear()
        for tool in mech.tools:
            tool.extra.clear()
            tool.input_schema().clear()
            if tool.output_schema is not None:
                tool.output_schema.clear()
            for example in tool.examples:
                if isinstance(example, (dict, list)):
                    example.clear()
            for argument in tool.arguments:
                argument.schema.clear()
                if isinstance(argument.default, (dict, list)):
                    argument.default.clear()
        for problem in mech.problems:
            problem.to_dict().clear()
    assert catalogue.digest() == digest


@pytest.mark.parametrize(
    "clone",
    [copy.copy, copy.deepcopy, lambda c: pickle.loads(pickle.dumps(c))],
    ids=["copy", "deepcopy", "pickle"],
)
def test_copies_keep_digest_and_queries(clone: Any) -> None:
    """Copying or pickling rebuilds the index and keeps the value (and digest) equal."""
    catalogue = build_published().catalogue
    copied = clone(catalogue)
    assert copied == catalogue and copied.digest() == catalogue.digest()
    name = catalogue.tool_names()[0]
    assert copied.tools_named(name) == catalogue.tools_named(name)
    assert dataclasses.replace(catalogue).tool_names() == catalogue.tool_names()


def test_queries_answer_from_the_index() -> None:
    """tools_named, tool_names, tools, collisions agree with a plain scan of the mechs."""
    catalogue = build_published().catalogue
    scan = [t for m in catalogue.mechs for t in m.tools]
    assert catalogue.tools() == tuple(scan)
    assert catalogue.tool_names() == tuple(sorted({t.name for t in scan}))
    for name in catalogue.tool_names():
        assert catalogue.tools_named(name) == tuple(t for t in scan if t.name == name)
    assert catalogue.tools_named("no such tool") == ()
    assert [c.name for c in catalogue.collisions()] == sorted(
        {t.name for t in scan if sum(u.name == t.name for u in scan) > 1}
    )
    for mech in catalogue.mechs:
        assert catalogue.mech(mech.ref) is mech
    listed = Catalogue(mechs=list(catalogue.mechs))  # type: ignore[arg-type]
    assert isinstance(listed.mechs, tuple) and listed == catalogue
