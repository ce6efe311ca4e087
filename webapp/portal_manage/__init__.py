"""Admin work in the portal (/manage/): releases, list pins, list corrections and roles.

Each page calls the code that owns the concept (the release API's validation, the list
builder's ``build_lists``, ``accounts.provisioning``), asks for a reason and confirmation, and
leaves an audit line: who, when, why.
"""
