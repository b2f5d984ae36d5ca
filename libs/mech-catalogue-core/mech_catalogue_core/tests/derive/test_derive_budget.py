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

"""The static evaluator's budget: hostile modules of a few KB finish fast with a problem code.

Each module here is written to blow up an evaluator that counts only AST nodes: shared
references doubling a value 60 times (2**60 elements once expanded), then hashing,
comparing, sorting or serialising it; string and f-string doubling; deep nesting; long
chains. The budget is asserted by the problem codes; ``pytest.mark.timeout``
(pytest-timeout, thread method, so that a loop inside C code such as hashing a tuple is
interrupted too) is only a guard against a hang: without the budget several of them ran for
minutes and took gigabytes. The guard ends the whole pytest process when it fires, so it is
far above any loaded machine's time (a 3 s guard fired on a shared machine at load 11,
taking ``make test-unit`` down with it).
"""

import json
from typing import Any, List

import pytest
from mech_catalogue_core.derive.derive import (
    DerivedPackage,
    DeriveError,
    derive_source,
)
from mech_catalogue_core.derive.python_hints import (
    literal_type,
)
from mech_catalogue_core.derive.static_values import (
    MAX_VALUE_SIZE,
    UNKNOWN,
    WORK_BUDGET,
    Budget,
    StaticScope,
    _BudgetExceeded,
)
from mech_catalogue_core.model.problems import (
    EVALUATION_BUDGET_EXCEEDED,
    SOURCE_SYNTAX_ERROR,
    SOURCE_TOO_DEEP,
    UNRESOLVED_TOOL_LIST,
)

#: hang guard: far above a bounded run (under 1 s even loaded), far below a blow-up (minutes)
BOUNDED = pytest.mark.timeout(60, method="thread")

RUN = """
def run(**kwargs):
    \"\"\"A tool.\"\"\"
    x = kwargs.get("x", {default})
    return kwargs["prompt"], None, None, None
"""


def _derive(constants: str, default: str = "1") -> DerivedPackage:
    return derive_source(
        constants + RUN.format(default=default), component_name="hostile"
    )


def _codes(derived: DerivedPackage) -> List[str]:
    return [p.code for p in derived.problems]


def _budget_message(derived: DerivedPackage) -> str:
    return next(
        p.message for p in derived.problems if p.code == EVALUATION_BUDGET_EXCEEDED
    )


def _default_of(derived: DerivedPackage, identifier: str) -> object:
    argument = next(a for a in derived.arguments if a.identifier == identifier)
    return None if argument.default_json is None else json.loads(argument.default_json)


def _doubling(start: str, step: str, times: int = 60) -> str:
    return f"a = {start}\n" + f"a = {step}\n" * times


@BOUNDED
@pytest.mark.parametrize(
    "start,step",
    [
        ("[1]", "[a, a]"),
        ("(1,)", "(a, a)"),
        ('{"k": 1}', '{"l": a, "r": a}'),
        ("[1]", "[*a, *a]"),
        ("[[1]]", "a + a"),
    ],
    ids=["list", "tuple", "dict", "starred", "concatenation"],
)
def test_shared_reference_doubling_as_a_default(start: str, step: str) -> None:
    """A value doubled 60 times through shared references, used as a kwargs default."""
    derived = _derive(_doubling(start, step), default="a")
    assert EVALUATION_BUDGET_EXCEEDED in _codes(derived)
    assert "size units" in _budget_message(derived)
    # the derivation went on: the argument is there, its default unknown
    assert {"x", "prompt"} <= {a.identifier for a in derived.arguments}
    assert _default_of(derived, "x") is None


@BOUNDED
@pytest.mark.parametrize(
    "use",
    [
        "b = {a}",
        "b = {a: 1}",
        "b = set([a, a])",
        "b = dict([(a, 1)])",
        "b = {x for x in [a]}",
        "b = {x: 1 for x in [a]}",
        "b = {1: 2}[a]",
        "b = sorted([a, a, a])",
    ],
    ids=[
        "set",
        "dict-key",
        "set-call",
        "dict-call",
        "setcomp",
        "dictcomp",
        "lookup",
        "sorted",
    ],
)
def test_hashing_or_sorting_a_doubled_tuple(use: str) -> None:
    """Hashing walks every shared reference again: the tuple is refused before it is hashed."""
    derived = _derive(_doubling("(1,)", "(a, a)") + use + "\n")
    assert EVALUATION_BUDGET_EXCEEDED in _codes(derived)


@BOUNDED
@pytest.mark.parametrize(
    "condition", ["a == b", "a != b", "a in [b]", "a not in (b,)", "a in {1: 2}"]
)
def test_comparing_two_large_shared_values(condition: str) -> None:
    """Two values as large as the size cap allows, built apart, compared in a comprehension."""
    constants = (
        _doubling("(1,)", "(a, a)", 11)
        + "b = (1,)\n"
        + "b = (b, b)\n" * 11
        + f"c = [x for x in range_ if {condition}]\n".replace(
            "range_", "[" + ", ".join(["1"] * 200) + "]"
        )
    )
    derived = _derive(constants)
    assert EVALUATION_BUDGET_EXCEEDED in _codes(derived)
    assert "work units" in _budget_message(derived)


@BOUNDED
@pytest.mark.parametrize(
    "step", ["s + s", 'f"{s}{s}"', 's + "-" + s'], ids=["plus", "fstring", "sandwich"]
)
def test_string_doubling(step: str) -> None:
    """A string doubled 60 times (an exabyte if built): refused at the size cap."""
    derived = _derive('s = "x"\n' + f"s = {step}\n" * 60, default="s")
    assert EVALUATION_BUDGET_EXCEEDED in _codes(derived)
    assert _default_of(derived, "x") is None


@BOUNDED
def test_bytes_doubling_is_never_evaluated() -> None:
    """Bytes are not a literal the evaluator knows: doubling them costs nothing and stays unknown."""
    derived = _derive('s = b"x"\n' + "s = s + s\n" * 60, default="s")
    assert _default_of(derived, "x") is None
    assert EVALUATION_BUDGET_EXCEEDED not in _codes(derived)


@BOUNDED
def test_deeply_nested_value() -> None:
    """A list nested 200 deep (legal Python) is over the depth cap."""
    derived = _derive("a = " + "[" * 150 + "1" + "]" * 150 + "\n", default="a")
    assert EVALUATION_BUDGET_EXCEEDED in _codes(derived)
    assert "nested more than" in _budget_message(derived)


@BOUNDED
@pytest.mark.parametrize(
    "constants",
    [
        "a = " + "-" * 5000 + "1\n",
        "a = " + " + ".join(["1"] * 20000) + "\n",
        "a = " + "not " * 5000 + "1\n",
        "a = " + "[" * 250 + "]" * 250 + "\n",
    ],
    ids=["unary", "binary-chain", "not-chain", "brackets"],
)
def test_deeply_nested_expression(constants: str) -> None:
    """Expressions nested thousands deep: source_too_deep, whatever the recursion limit."""
    with pytest.raises(DeriveError) as raised:
        _derive(constants)
    assert raised.value.problem.code in (SOURCE_TOO_DEEP, SOURCE_SYNTAX_ERROR)


def test_nesting_within_the_limit_is_evaluated() -> None:
    """A 150-term sum (150 levels of syntax tree) is still evaluated, not refused."""
    derived = _derive("a = " + " + ".join(["1"] * 150) + "\n", default="a")
    assert _default_of(derived, "x") == 150


@BOUNDED
def test_deeply_nested_annotation() -> None:
    """An annotation union 5000 members long: source_too_deep, not a RecursionError."""
    source = (
        "def run(x: "
        + " | ".join(["int"] * 5000)
        + " = 1, **kwargs):\n    return kwargs['p']\n"
    )
    with pytest.raises(DeriveError) as raised:
        derive_source(source)
    assert raised.value.problem.code == SOURCE_TOO_DEEP


@BOUNDED
def test_long_chain_of_names_stays_known() -> None:
    """3,000 names each bound to the previous one: cheap, and the value is still known."""
    constants = "a0 = [1, 2]\n" + "".join(f"a{i + 1} = a{i}\n" for i in range(3000))
    derived = _derive(constants, default="a3000")
    assert _default_of(derived, "x") == [1, 2]
    assert EVALUATION_BUDGET_EXCEEDED not in _codes(derived)


@BOUNDED
def test_total_work_is_bounded_across_statements() -> None:
    """Many statements each within the size cap: together they exhaust the work budget.

    Later constants, the tool list among them, are then unknown, with both problems.
    """
    items = ", ".join(f'"t{i}"' for i in range(2000))
    constants = f"A = [{items}]\n" + "B = sorted(A)\n" * 40
    derived = _derive(constants + 'ALLOWED_TOOLS = ["late"]\n')
    codes = _codes(derived)
    assert EVALUATION_BUDGET_EXCEEDED in codes and UNRESOLVED_TOOL_LIST in codes
    assert f"more than {WORK_BUDGET} work units" in _budget_message(derived)
    assert derived.tool_names == ("hostile",)


@BOUNDED
def test_comprehension_product_is_bounded() -> None:
    """A cross product of two 3,000-element lists (9 million scopes) stops at the cap."""
    constants = (
        "A = [c for c in "
        + repr("ab" * 1500)
        + "]\nB = [x + y for x in A for y in A]\n"
    )
    derived = _derive(constants, default="B")
    assert EVALUATION_BUDGET_EXCEEDED in _codes(derived)


@BOUNDED
def test_appends_cannot_grow_past_the_cap() -> None:
    """``a.append(a)`` repeated: every grown list is measured like any other value."""
    constants = "a = [1]\n" + "a.append(a)\na = a + a\n" * 40
    derived = _derive(constants, default="a")
    assert EVALUATION_BUDGET_EXCEEDED in _codes(derived)


def test_ordinary_module_has_no_budget_problem() -> None:
    """Realistic constants (a 50 KB prompt, engine tables, a comprehension) stay known."""
    constants = (
        f"PROMPT = {'Answer carefully. ' * 3000!r}\n"
        'ENGINES = {"chat": ["gpt-4o", "gpt-4o-mini"], "completion": ["davinci"]}\n'
        'ALLOWED_TOOLS = ["openai-" + m for ms in ENGINES.values() for m in ms]\n'
        'DEFAULTS = {"max_tokens": 500, "temperature": 0.7, "stop": ["\\n", "###"]}\n'
    )
    derived = _derive(constants, default='DEFAULTS["stop"]')
    assert EVALUATION_BUDGET_EXCEEDED not in _codes(derived)
    assert derived.tool_names == (
        "openai-gpt-4o",
        "openai-gpt-4o-mini",
        "openai-davinci",
    )
    assert _default_of(derived, "x") == ["\n", "###"]


def test_sizes_count_shared_references_as_expanded() -> None:
    """[a, a] is twice a's size plus one, however few objects it holds."""
    budget = Budget()
    inner = [1, 2, 3]
    assert budget.size(inner) == 4
    assert budget.size([inner, inner]) == 9
    nested: List[Any] = [inner]
    for _ in range(12):
        nested = [nested, nested]
    with pytest.raises(_BudgetExceeded):
        budget.size(nested)
    assert "size units" in budget.exceeded


def test_the_budget_is_shared_by_every_evaluation_of_a_scope() -> None:
    """Spent work is gone for later evaluate() calls of the same scope (derive's defaults)."""
    import ast  # pylint: disable=import-outside-toplevel

    scope = StaticScope(ast.parse("A = [1, 2, 3]\n"), Budget(work=60))
    node = ast.parse("A + A", mode="eval").body
    results = [scope.evaluate(node) for _ in range(20)]
    assert results[0] == [1, 2, 3, 1, 2, 3]
    assert results[-1] is UNKNOWN and "work units" in scope.budget.exceeded


def test_values_within_the_cap_are_safe_to_use_downstream() -> None:
    """Every bound value fits MAX_VALUE_SIZE, so literal_type and JSON see bounded input."""
    import ast  # pylint: disable=import-outside-toplevel

    scope = StaticScope(ast.parse(_doubling("[1]", "[a, a]", 60)))
    assert scope.bindings["a"] is UNKNOWN
    budget = Budget()
    for value in scope.bindings.values():
        if value is not UNKNOWN:
            assert budget.size(value) <= MAX_VALUE_SIZE
            literal_type(value)
