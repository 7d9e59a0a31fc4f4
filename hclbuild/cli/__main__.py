"""`python -m hclbuild.cli`: the hclbuild command."""

import sys

from hclbuild.cli import main

sys.exit(main())
