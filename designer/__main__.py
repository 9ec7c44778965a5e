"""``python -m designer`` runs the command-line entry point."""

from designer.cli import console

if __name__ == "__main__":  # not when a worker process started by a sweep imports this module again
    console()
