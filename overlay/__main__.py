import sys

from overlay.cli import main

sys.exit(main())
