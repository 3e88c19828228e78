"""``--report json:PATH``: the run's ``RunResult.to_dict()`` (schema in the README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from passcheck.integrations.reports import report_format


@report_format("json")
def write_json(result: Any, path: Path) -> None:
    path.write_text(json.dumps(result.to_dict(), indent=2))
