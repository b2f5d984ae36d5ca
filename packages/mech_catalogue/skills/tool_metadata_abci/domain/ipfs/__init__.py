"""Content addressing: CIDs, UnixFS re-hashing, and the size cap on every read."""
