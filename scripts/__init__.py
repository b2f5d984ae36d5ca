"""Developer scripts: toolchain, offline package sync, devnet and the command-line interface."""
