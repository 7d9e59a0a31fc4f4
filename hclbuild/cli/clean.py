"""`hclbuild clean [PATHS]`: remove what hclbuild wrote in the build folder of each project, as
build/<name>/.hclbuild-written.json lists it (project.written), and nothing else: a file of the
user's own in build/<name>/ stays, with the folders that hold it. The build folder is the one
every other command of PATHS uses (the rule of `hclbuild --help`); build/<name>/.hclbuild-project
stays too, so a second project of that name is still refused there.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from hclbuild.cli.common import (
    BUILD_DIR_HELP,
    EXIT_CODES,
    PATHS_HELP,
    allowed_build_root,
    build_name,
    find_projects,
)
from hclbuild.errors import HCLError
from hclbuild.project.layout import (
    PROJECT_OWNER_FILE,
    BuildLayout,
    project_owner_problem,
)
from hclbuild.project.written import remove_written

SHOWN_LEFT = 5  # the user's files named after a clean; the rest are counted


def add_clean_command(sub: argparse._SubParsersAction) -> None:
    """Register `hclbuild clean` on the subcommands `sub`."""
    cmd = sub.add_parser(
        "clean",
        help="remove what hclbuild wrote in the build folder",
        description="Remove what hclbuild wrote in build/<project>/ of every project of PATHS: exactly "
        "what build/<project>/.hclbuild-written.json lists (as `doit clean` does); files hclbuild did "
        "not write stay, and are named.",
        epilog=EXIT_CODES,
    )
    cmd.add_argument("paths", nargs="*", metavar="PATHS", help=PATHS_HELP)
    cmd.add_argument("--build-dir", default=None, metavar="DIR", help=BUILD_DIR_HELP)
    cmd.set_defaults(run=run_clean)


def run_clean(args: argparse.Namespace) -> int:
    """Clean every project of PATHS; a build of another folder's project of the same name is refused
    before anything is removed."""
    projects = find_projects(args.paths)
    build_root = allowed_build_root(args, projects)
    layouts = []
    for folder in projects:
        name = build_name(folder)
        problem = project_owner_problem(build_root, name, folder)
        if problem is not None:
            raise HCLError(problem)
        layouts.append(BuildLayout(build_root, name))
    for layout in layouts:
        removed = remove_written(layout)
        left = _left(layout.root)
        line = f"{layout.root}: removed {len(removed)} of hclbuild's files and folders"
        if left:
            shown = ", ".join(left[:SHOWN_LEFT]) + (
                f" and {len(left) - SHOWN_LEFT} more" if len(left) > SHOWN_LEFT else ""
            )
            line += f"; kept {len(left)} it did not write: {shown}"
        print(line)
    return 0


def _left(root: Path) -> list[str]:
    """The files below root that a clean kept (its ownership record aside), relative to root."""
    left = []
    for current, _, files in os.walk(root):
        for name in files:
            path = os.path.relpath(os.path.join(current, name), root)
            if path != PROJECT_OWNER_FILE:
                left.append(path)
    return sorted(left)
