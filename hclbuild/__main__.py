"""`python -m hclbuild ...`: the `hclbuild` command, for an environment whose scripts are not on PATH."""

from hclbuild.cli import main

raise SystemExit(main())
