"""``python -m passcheck.bundle run DIR``: run a bundle (``--bundle DIR``) on this machine's GPU.

Only TVM's runtime and NumPy are needed here; see ``passcheck.gpu.runner``."""

import sys

from passcheck.gpu.runner import main

if __name__ == "__main__":
    sys.exit(main())
