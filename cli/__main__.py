import sys

from creepnet.cli.main import main

sys.exit(main())
