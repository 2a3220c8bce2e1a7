"""`python -m tuner.cli` runs the `sparring` command line."""

import sys

from tuner.cli import main

if __name__ == "__main__":
    sys.exit(main())
