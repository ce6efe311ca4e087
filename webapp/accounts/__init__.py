"""Users, roles, sites (institutions) and API tokens."""
