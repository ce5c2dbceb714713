import sys

from creepnet.cli.main import main

if __name__ == "__main__":  # a spawned worker process imports this module too
    sys.exit(main())
