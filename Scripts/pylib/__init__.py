"""Shared helpers for the classify Python data scripts (standard library + numpy only)."""
