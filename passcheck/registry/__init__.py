"""The pass registry: names, aliases, prerequisites, and which generators feed each pass."""
