"""The read-only HTTP API: strict request parsing and routes over the exposed catalogue."""
