import sys
from pathlib import Path

# The buggy passes beside these tests, and tests/known_bug_check.py.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))
