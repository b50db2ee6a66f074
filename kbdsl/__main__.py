import sys

from kbdsl.cli import main

sys.exit(main())
