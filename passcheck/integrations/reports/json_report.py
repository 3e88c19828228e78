"""``--report json:PATH``: the run's ``RunResult.to_dict()`` (schema in the README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from passcheck.integrations import seed_report
from passcheck.integrations.reports import report_format


@report_format("json")
def write_json(result: Any, path: Path) -> None:
    data = result.to_dict()
    seeds = seed_report.summarize(result)
    if seeds is not None:
        data["seed_models"] = seeds
    path.write_text(json.dumps(data, indent=2))
