"""Tests of the capped_http_client connection."""
