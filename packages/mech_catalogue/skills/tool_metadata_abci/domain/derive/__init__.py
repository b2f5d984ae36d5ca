"""From tool code to typed arguments (static analysis only) and to a generated manifest."""
