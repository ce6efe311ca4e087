"""Ranked lists, entries and corrections (owned by the rankings engineer)."""
