"""Developer tooling only: toolchain, setup, offline package sync, devnet, ``make run``, benchmarks.

Product code (``mech_catalogue_cli``, ``packages/mech_catalogue``) never imports this
package (``make import-check``); this package may import product code.
"""
