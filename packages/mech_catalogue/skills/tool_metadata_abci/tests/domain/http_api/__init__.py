"""Tests of domain/http_api."""
