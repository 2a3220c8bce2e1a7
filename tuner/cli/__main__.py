"""`python -m tuner.cli` runs the `sparring` command line."""

import sys

from tuner.cli import main

sys.exit(main())
