"""pytest plugin for ``make mutation``: mutmut 3.7.0 on pytest 9.

mutmut 3.7.0 records which test reached which function from ``item._nodeid``, an attribute
pytest 9 no longer has (mutmut 3.8 reads ``nodeid`` but requires click >= 8.4, which
requirements.txt pins lower). Loaded with ``-p scripts.mutmut_pytest9`` from setup.cfg's
``[mutmut]`` section only; it gives pytest's nodes ``_nodeid`` as an alias of ``nodeid``.
"""

from _pytest.nodes import Node

if not hasattr(Node, "_nodeid"):
    Node._nodeid = property(  # type: ignore[attr-defined]  # pylint: disable=protected-access
        lambda node: node.nodeid
    )
