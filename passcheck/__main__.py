import sys

from passcheck.cli import main

sys.exit(main())
