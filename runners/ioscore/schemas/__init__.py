"""Schemas shipped as package data: result.json (a byte copy of suite/schema/) and the
system description."""
