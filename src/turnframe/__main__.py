"""``python -m turnframe``: the ``turnframe`` command line (docs/release-checklist.md).

The same entry point as the ``turnframe`` script (``[project.scripts]`` in pyproject.toml):
``python -m turnframe --help`` works wherever the package imports, with no script on PATH.
"""

import sys

from turnframe.cli import main

if __name__ == "__main__":
    sys.exit(main())
