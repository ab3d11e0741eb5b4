"""``python -m turnframe.cli``."""

import sys

from turnframe.cli import main

sys.exit(main())
