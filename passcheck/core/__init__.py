"""The core: property API, subjects, cases, outcomes, errors and the run loop. Knows no IR family."""
