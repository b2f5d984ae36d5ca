"""Cross-package integration and end-to-end tests."""
