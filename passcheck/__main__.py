import sys

from passcheck.integrations.cli import main

sys.exit(main())
