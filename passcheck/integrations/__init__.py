"""Integrations: the pytest plugin and report writers."""
