"""The `portkit` command and `python -m portkit`: the process's entry point."""
import gc
from typing import NoReturn


def main() -> NoReturn:
    """Run the command line in this process, which `portkit.cli.run` ends. The collector's young pass runs every
    million new objects (as in `portkit.cli.main`) from the first import on, for the whole process: the imports'
    ~100,000 objects cost 0.007 s of young passes, and a threshold put back when the command returns makes one
    young pass over all it allocated (0.005 s of a small scan's end)."""
    gc.set_threshold(1_000_000, 50, 1_000)
    from portkit.cli import run

    run()


if __name__ == "__main__":
    main()
