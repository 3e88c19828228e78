"""The Relax family: op specs, graph drawing, building, shrinking, execution and type oracles,
and the pass registry. Importing the package declares every op and every pass subject."""

from passcheck.relax import known_bugs, models, mutate, ops, passes, pipeline, program, sequence  # noqa: F401
