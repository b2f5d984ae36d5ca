"""``mech-catalogue``: the command-line interface over the skill's domain code.

Run as ``python -m scripts.cli <command>`` (or ``scripts/mech-catalogue <command>``).
Commands: ``validate``, ``show``, ``derive``, ``generate``, ``export``, ``cid``, ``list``,
``publish``; each takes ``--json`` for machine-readable output. Exit codes:
:data:`EXIT_OK` (0) success, :data:`EXIT_INVALID` (1) invalid input or manifest (including
an unreachable IPFS node or chain, a digest mismatch, a refused publish),
:data:`EXIT_USAGE` (2) bad command line (click's usage errors).
See docs/cli.md.
"""

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
