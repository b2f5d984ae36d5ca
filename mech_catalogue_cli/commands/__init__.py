"""One module per command that has grown its own options and helpers (`list`, `publish`)."""
