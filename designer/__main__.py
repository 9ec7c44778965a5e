"""``python -m designer`` runs the command-line entry point."""

import sys

from designer.cli import main

sys.exit(main())
