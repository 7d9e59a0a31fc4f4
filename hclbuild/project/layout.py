"""Where every build product of one project lives (docs: ARCHITECTURE.md, "The flow, as data").

    build/<name>/ir/top.mlir              whole design after outlining
    build/<name>/ir/<func>.mlir           one file per function
    build/<name>/ir/manifest.json         the functions and their files
    build/<name>/llvm/units/              cached LLVM IR of the reference, one module per function
    build/<name>/llvm/objects/            its native code, one object per function
    build/<name>/golden/<func>/           {in,out}_<arg>.bin + manifest.json
    build/<name>/hls/<func>/              per-function Vitis HLS project folder
    build/<name>/csim/<func>.json         C simulation result
    build/<name>/csynth/<func>.xml        the function's csynth report, copied from either Vitis layout
    build/<name>/csynth/<func>.inputs     sha256 of the files that csynth read (results travel with it)
    build/<name>/hls/<top>/<func>_blackbox.json   RTL blackbox of an outlined function (top_assembly)
    build/<name>/cosim/<func>.rpt         its co-simulation report, likewise
    build/<name>/estimate/<func>.json     hclbuild's QoR estimate of the function (a model, not Vitis)
    build/<name>/explore/points/<key>.json  one design point's estimate (`hclbuild explore`)
    build/<name>/explore/points.json      every point of the last exploration
    build/<name>/explore/pareto.{json,md,png}  its Pareto front
    build/<name>/reports/                 summary.json, report.md, report.html, plots
    build/index.html, build/summary.json  every project of the build folder (report.html of each)
    build/<name>/status/                  the latest attempt of every task (project/attempts.py)
    build/<name>/.hclbuild-written.json   what hclbuild wrote here, by task: all any clean removes (project/written.py)
    build/<name>/.hclbuild-project        the project folder this build is of
    build/.csim/                          csim's compiled objects and precompiled headers, shared by all projects

Only this module spells these paths; tasks and runtimes ask a BuildLayout.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from hclbuild.errors import CompileError, ConfigError

HLS_SOLUTION = "solution1"
# the files of a project folder
KERNEL_FILE = "kernel.py"
PROJECT_FILE = "project.toml"


def _checked(func: str) -> str:
    # function names become path components: refuse anything that could escape the folder. An ASCII
    # Python identifier is exactly [A-Za-z_][A-Za-z0-9_]*, and testing it needs no regex compiled
    # on every doit run
    if not (isinstance(func, str) and func.isascii() and func.isidentifier()):
        raise CompileError(f"function name {func!r} is not a C identifier")
    return func


# the folders of build/<name>/ and the file names that BuildLayout's Path methods and task_files share
IR_DIR, TOP_MLIR, LLVM_DIR, GOLDEN_DIR, HLS_DIR, CSIM_DIR = "ir", "top.mlir", "llvm", "golden", "hls", "csim"
IR_MANIFEST, LLVM_UNITS, LLVM_MANIFEST = "manifest.json", "units", "manifest.json"
REPORTS_DIR, REPORT_SUMMARY, REPORT_MARKDOWN, STATUS_DIR = "reports", "summary.json", "report.md", "status"
ESTIMATE_DIR = "estimate"
VECTORS_MANIFEST = "manifest.json"  # of golden/<func>/ and hls/<func>/data/
DATA_DIR = "data"  # hls/<func>/data/: the golden vectors the testbench reads
# the C simulation harness (runtime.testbench_build): the same two files in every function folder
HARNESS_HEADER, HARNESS_SOURCE = "hclbuild_tb.h", "hclbuild_tb.cpp"
WRITTEN_FILE = ".hclbuild-written.json"  # build/<name>/'s list of what hclbuild wrote (project.written)


# The records of this module are NamedTuples: immutable, compared and pickled by value, and no
# generated code to exec when they are defined (a no-op doit imports this module).
class HlsFiles(NamedTuple):
    """The fixed files of one function's HLS folder (emit writes all but data_manifest, which the
    reference run writes); each a path below the folder, or a name relative to it."""

    cpp: str  # the top file, <func>.cpp
    header: str  # <func>.h
    testbench: str  # tb_<func>.cpp: the argument table and the call
    harness_header: str  # hclbuild_tb.h
    harness_source: str  # hclbuild_tb.cpp: reads data/, compares, prints the result line
    tcl: str  # run_hls.tcl
    cfg: str  # hls_config.cfg
    makefile: str
    readme: str
    data_manifest: str  # data/manifest.json: the golden vectors the testbench reads

    @classmethod
    def below(cls, folder: str, func: str) -> HlsFiles:
        """The files of `func`'s HLS folder `folder` ("" for names relative to it)."""
        prefix = f"{folder}{os.sep}" if folder else ""
        return cls(
            *(
                prefix + name
                for name in (
                    f"{func}.cpp",
                    f"{func}.h",
                    f"tb_{func}.cpp",
                    HARNESS_HEADER,
                    HARNESS_SOURCE,
                    "run_hls.tcl",
                    "hls_config.cfg",
                    "Makefile",
                    "README.md",
                    f"{DATA_DIR}{os.sep}{VECTORS_MANIFEST}",
                )
            )
        )

    @property
    def emitted(self) -> list[str]:
        """What emit writes: every file but the data manifest."""
        return list(self[:-1])

    @property
    def compiled(self) -> list[str]:
        """What csim compiles and reads: the top file, header, testbench and harness, and the data
        manifest."""
        return [*self.testbench_sources, self.data_manifest]

    @property
    def testbench_sources(self) -> list[str]:
        """The C++ a testbench is made of: the top file, header, testbench and harness."""
        return [self.cpp, self.header, self.testbench, self.harness_header, self.harness_source]

    @property
    def synthesized(self) -> list[str]:
        """What synthesis reads: not the golden data (so new vectors rerun cosim, not csynth), nor the
        Makefile and README, which Vitis never reads (the Makefile names this machine's ap_types)."""
        return [*self.testbench_sources, self.tcl, self.cfg]


def hls_project_files(folder: Path, func: str) -> list[Path]:
    """Every fixed file of func's HLS folder `folder` (HlsFiles, in its order)."""
    return [Path(path) for path in HlsFiles.below(str(folder), func)]


class TaskFiles(NamedTuple):
    """The files of one function's doit tasks, as strings (BuildLayout.task_files)."""

    mlir: str  # ir/top.mlir of the top, ir/<func>.mlir of the others
    golden_dir: str
    golden_manifest: str
    hls_dir: str
    hls: HlsFiles
    data_dir: str  # hls/<func>/data/
    csim_json: str
    estimate_json: str


class ProjectTaskFiles(NamedTuple):
    """The project-wide files of doit tasks, as strings (BuildLayout.project_task_files)."""

    ir_dir: str
    top_mlir: str
    ir_manifest: str
    llvm_dir: str
    llvm_manifest: str
    reports_dir: str
    report_summary: str
    report_markdown: str
    status_dir: str


def is_project_name(name: str) -> bool:
    """Whether `name` can be a project name, which becomes a folder and doit task names: letters,
    digits, '_', '-' and '.', not first '-' or '.' (tested without a regex: task planning asks)."""
    return (
        bool(name) and name[0] not in "-." and all(c.isascii() and (c.isalnum() or c in "_.-") for c in name)
    )


def unnamed_project_error(folder: str | Path, name: str) -> str:
    """Why a project folder whose name is no project name, and whose project.toml names none, is
    refused before any task exists (as `hclbuild new` refuses to make it)."""
    return (
        f"{folder}: {name!r} is not a valid project name (letters, digits, '_', '-', '.'; it names the "
        "build folder and the doit tasks): rename the folder or set [project] name in its project.toml"
    )


def default_build_root(path: Path) -> Path:
    """`build/` of a project folder (hclbuild's default, and the CI pipeline's): beside the project
    folder, or, for a project inside a folder named `projects`, beside that folder (the layout
    dodo.py uses)."""
    parent = path.parent
    if parent.name == "projects":
        return parent.parent / "build"
    return parent / "build"


BUILD_FOLDER_RULE = (
    "build/<project>/ goes in --build-dir, else in build/ beside each project folder (beside its "
    "parent folder when that is named projects/), wherever hclbuild runs and however PATHS are spelled"
)


def shared_build_root(projects: list[Path]) -> Path:
    """The default build folder of these project folders (default_build_root, BUILD_FOLDER_RULE),
    decided by the project folders themselves, never by how a command named them: `hclbuild report`
    in a folder holding project sobel used ../build, and `hclbuild csim sobel` ./build. Projects
    whose default build folders differ need --build-dir (a ConfigError says so)."""
    roots = sorted({default_build_root(Path(os.path.abspath(folder))) for folder in projects})
    if len(roots) > 1:
        raise ConfigError(
            f"the projects would build in different folders ({', '.join(map(str, roots))}): choose one "
            "with --build-dir"
        )
    return roots[0]


def blackbox_file_name(func: str) -> str:
    """`<func>_blackbox.json`: the RTL blackbox description of `func`, in the top's HLS folder (where
    Vitis runs, so its relative paths mean the same whether read from the file or the cwd)."""
    return f"{_checked(func)}_blackbox.json"


class _Folder(NamedTuple):
    build_root: Path
    project_name: str


class BuildLayout(_Folder):
    """Paths of one project's build folder, `<build_root>/<project_name>/` (immutable)."""

    __slots__ = ()

    def __new__(cls, build_root: Path | str, project_name: str) -> BuildLayout:
        return super().__new__(cls, Path(build_root), project_name)

    def __getnewargs__(self) -> tuple[Path, str]:
        return (self.build_root, self.project_name)

    @property
    def root(self) -> Path:
        """`build/<name>/`."""
        return self.build_root / self.project_name

    @property
    def _root_text(self) -> str:
        return os.path.join(self.build_root, self.project_name)

    # ---- ir/ ----------------------------------------------------------------------------
    @property
    def ir_dir(self) -> Path:
        """`build/<name>/ir/`."""
        return self.root / IR_DIR

    @property
    def top_mlir(self) -> Path:
        """`ir/top.mlir`: the whole design after outlining."""
        return self.ir_dir / TOP_MLIR

    def func_mlir(self, func: str) -> Path:
        """`ir/<func>.mlir`: one function, byte-stable when unchanged."""
        return self.ir_dir / f"{_checked(func)}.mlir"

    @property
    def ir_manifest(self) -> Path:
        """`ir/manifest.json`: the functions of the design and their files."""
        return self.ir_dir / IR_MANIFEST

    # ---- llvm/ --------------------------------------------------------------------------
    @property
    def llvm_dir(self) -> Path:
        """`build/<name>/llvm/`."""
        return self.root / LLVM_DIR

    @property
    def llvm_units_dir(self) -> Path:
        """`llvm/units/`: the reference's LLVM IR, one file per code unit (function)."""
        return self.llvm_dir / LLVM_UNITS

    @property
    def llvm_manifest(self) -> Path:
        """`llvm/manifest.json`: the code units with their digests, the digest of the ir/top.mlir they
        were lowered from, and the probe sites and checks of the instrumentation."""
        return self.llvm_dir / LLVM_MANIFEST

    @property
    def llvm_objects_dir(self) -> Path:
        """`llvm/objects/`: native code of each code unit, named by a hash of its IR."""
        return self.llvm_dir / "objects"

    # ---- golden/ ------------------------------------------------------------------------
    @property
    def golden_root(self) -> Path:
        """`build/<name>/golden/`."""
        return self.root / GOLDEN_DIR

    def golden_dir(self, func: str) -> Path:
        """`golden/<func>/`: {in,out}_<arg>.bin and manifest.json recorded at the call boundary."""
        return self.golden_root / _checked(func)

    # ---- hls/ ---------------------------------------------------------------------------
    @property
    def hls_root(self) -> Path:
        """`build/<name>/hls/`."""
        return self.root / HLS_DIR

    def hls_dir(self, func: str) -> Path:
        """`hls/<func>/`: the function's Vitis HLS project folder."""
        return self.hls_root / _checked(func)

    def hls_cpp(self, func: str) -> Path:
        """`hls/<func>/<func>.cpp`: the top file of the function."""
        return self.hls_dir(func) / f"{func}.cpp"

    def hls_header(self, func: str) -> Path:
        """`hls/<func>/<func>.h`."""
        return self.hls_dir(func) / f"{func}.h"

    def hls_testbench(self, func: str) -> Path:
        """`hls/<func>/tb_<func>.cpp`."""
        return self.hls_dir(func) / f"tb_{func}.cpp"

    def hls_tcl(self, func: str) -> Path:
        """`hls/<func>/run_hls.tcl`: classic `vitis_hls -f` flow."""
        return self.hls_dir(func) / "run_hls.tcl"

    def hls_cfg(self, func: str) -> Path:
        """`hls/<func>/hls_config.cfg`: Vitis unified `v++ -c --mode hls` flow."""
        return self.hls_dir(func) / "hls_config.cfg"

    def hls_data_dir(self, func: str) -> Path:
        """`hls/<func>/data/`: the golden vectors the testbench reads."""
        return self.hls_dir(func) / DATA_DIR

    def hls_files(self, func: str) -> list[Path]:
        """The files every emitted `hls/<func>/` folder has (HlsFiles); vectors vary by argument."""
        return hls_project_files(self.hls_dir(func), func)

    def task_files(self, func: str, is_top: bool) -> TaskFiles:
        """What func's doit tasks name, as the strings of func_mlir (top_mlir), golden_dir and its
        manifest, hls_dir, hls_files, csim_json and estimate_json. Joined without pathlib: task discovery asks on
        every doit run, and parsing these thousands of paths was a tenth of a no-op `doit`."""
        root, func, sep = self._root_text, _checked(func), os.sep
        golden, hls = f"{root}{sep}{GOLDEN_DIR}{sep}{func}", f"{root}{sep}{HLS_DIR}{sep}{func}"
        return TaskFiles(
            mlir=f"{root}{sep}{IR_DIR}{sep}{TOP_MLIR if is_top else func + '.mlir'}",
            golden_dir=golden,
            golden_manifest=f"{golden}{sep}{VECTORS_MANIFEST}",
            hls_dir=hls,
            hls=HlsFiles.below(hls, func),
            data_dir=f"{hls}{sep}{DATA_DIR}",
            csim_json=f"{root}{sep}{CSIM_DIR}{sep}{func}.json",
            estimate_json=f"{root}{sep}{ESTIMATE_DIR}{sep}{func}.json",
        )

    def project_task_files(self) -> ProjectTaskFiles:
        """ir_dir, top_mlir, ir_manifest, llvm_dir, llvm_manifest, reports_dir, report_summary,
        report_markdown and status_dir as strings, joined without pathlib like task_files."""
        root, sep = self._root_text, os.sep
        ir, llvm, reports = f"{root}{sep}{IR_DIR}", f"{root}{sep}{LLVM_DIR}", f"{root}{sep}{REPORTS_DIR}"
        return ProjectTaskFiles(
            ir_dir=ir,
            top_mlir=f"{ir}{sep}{TOP_MLIR}",
            ir_manifest=f"{ir}{sep}{IR_MANIFEST}",
            llvm_dir=llvm,
            llvm_manifest=f"{llvm}{sep}{LLVM_MANIFEST}",
            reports_dir=reports,
            report_summary=f"{reports}{sep}{REPORT_SUMMARY}",
            report_markdown=f"{reports}{sep}{REPORT_MARKDOWN}",
            status_dir=f"{root}{sep}{STATUS_DIR}",
        )

    def vitis_project_dir(self, func: str) -> Path:
        """`hls/<func>/<func>_prj/`: what `open_project` in run_hls.tcl creates."""
        return self.hls_dir(func) / f"{func}_prj"

    def csynth_xml(self, func: str) -> Path:
        """The csynth report that vitis_hls writes for the function's solution."""
        return self.vitis_project_dir(func) / HLS_SOLUTION / "syn" / "report" / f"{func}_csynth.xml"

    def vitis_work_dir(self, func: str) -> Path:
        """`hls/<func>/<func>_comp/`: the unified flow's `--work_dir` (results under its `hls/`)."""
        return self.hls_dir(func) / f"{func}_comp"

    # ---- csynth/ and cosim/ ------------------------------------------------------------------
    def csynth_result(self, func: str) -> Path:
        """`csynth/<func>.xml`: the csynth report of the last synthesis, whichever flow ran it."""
        return self.root / "csynth" / f"{_checked(func)}.xml"

    def csynth_inputs(self, func: str) -> Path:
        """`csynth/<func>.inputs`: the digest of what the last successful csynth of `func` read."""
        return self.root / "csynth" / f"{_checked(func)}.inputs"

    def blackbox_json(self, top: str, func: str) -> Path:
        """`hls/<top>/<func>_blackbox.json`: `func` as an RTL blackbox of the top's project."""
        return self.hls_dir(top) / blackbox_file_name(func)

    def cosim_result(self, func: str) -> Path:
        """`cosim/<func>.rpt`: the co-simulation report of the last cosim run."""
        return self.root / "cosim" / f"{_checked(func)}.rpt"

    @property
    def template_cache(self) -> Path:
        """`<build_root>/.templates/`: the compiled templates (templates.keep_compiled_templates),
        shared by every project of the build folder."""
        return self.build_root / ".templates"

    # ---- csim/ --------------------------------------------------------------------------
    @property
    def csim_cache(self) -> Path:
        """`<build_root>/.csim/`: compiled csim objects (the harness, testbenches, one per function
        definition) and precompiled headers, by content (runtime.csim_cache), shared by every
        project of the build folder."""
        return self.build_root / ".csim"

    @property
    def csim_dir(self) -> Path:
        """`build/<name>/csim/`."""
        return self.root / CSIM_DIR

    def csim_json(self, func: str) -> Path:
        """`csim/<func>.json`: pass/fail, max error, first mismatching index."""
        return self.csim_dir / f"{_checked(func)}.json"

    # ---- reports/ -----------------------------------------------------------------------
    @property
    def reports_dir(self) -> Path:
        """`build/<name>/reports/`."""
        return self.root / REPORTS_DIR

    @property
    def report_summary(self) -> Path:
        """`reports/summary.json`: parsed csynth results of every function."""
        return self.reports_dir / REPORT_SUMMARY

    @property
    def report_markdown(self) -> Path:
        """`reports/report.md`."""
        return self.reports_dir / REPORT_MARKDOWN

    @property
    def report_html(self) -> Path:
        """`reports/report.html`: the self-contained page of the project."""
        return self.reports_dir / "report.html"

    @property
    def build_index_html(self) -> Path:
        """`<build_root>/index.html`: one row per project of the build folder."""
        return self.build_root / "index.html"

    @property
    def build_summary(self) -> Path:
        """`<build_root>/summary.json`: every project's summary.json in one file (a QoR baseline)."""
        return self.build_root / REPORT_SUMMARY

    def estimate_json(self, func: str) -> Path:
        """`estimate/<func>.json`: hclbuild's QoR estimate of the function."""
        return self.root / ESTIMATE_DIR / f"{_checked(func)}.json"

    @property
    def pareto_png(self) -> Path:
        """`explore/pareto.png`: the Pareto front an exploration drew."""
        return self.root / "explore" / "pareto.png"

    @property
    def explore_dir(self) -> Path:
        """`explore/`: what `hclbuild explore` writes."""
        return self.root / "explore"

    def explore_point(self, key: str) -> Path:
        """`explore/points/<key>.json`: one design point's estimate (key: `unroll-4,ii-1`)."""
        if not key or "/" in key or key.startswith("."):
            raise CompileError(f"design point key {key!r} cannot name a file")
        return self.root / "explore" / "points" / f"{key}.json"

    @property
    def explore_points(self) -> Path:
        """`explore/points.json`: every point of the last exploration, its knobs and estimate."""
        return self.root / "explore" / "points.json"

    @property
    def pareto_json(self) -> Path:
        """`explore/pareto.json`: the last exploration's Pareto front."""
        return self.root / "explore" / "pareto.json"

    @property
    def pareto_markdown(self) -> Path:
        """`explore/pareto.md`: the Pareto front as a table."""
        return self.root / "explore" / "pareto.md"

    @property
    def report_hardware_stamp(self) -> Path:
        """`reports/hardware.sha256`: the digest of the csynth/cosim reports report:<name> last read."""
        return self.reports_dir / "hardware.sha256"

    @property
    def written_manifest(self) -> Path:
        """`.hclbuild-written.json`: what hclbuild wrote in build/<name>/, by task (project.written)."""
        return self.root / WRITTEN_FILE

    # ---- status/ ------------------------------------------------------------------------
    @property
    def status_dir(self) -> Path:
        """`build/<name>/status/`: one record per task of its latest attempt."""
        return self.root / STATUS_DIR

    def task_status(self, step: str, func: str | None = None) -> Path:
        """`status/<step>.json` of a project-wide task, `status/<step>/<func>.json` of a per-function one."""
        if func is None:
            return self.status_dir / f"{_checked(step)}.json"
        return self.status_dir / _checked(step) / f"{_checked(func)}.json"


PROJECT_OWNER_FILE = ".hclbuild-project"  # build/<name>/.hclbuild-project: the project folder it is of


def build_folder_problem(build_root: Path, projects: list[Path]) -> str | None:
    """Why build_root cannot be the build folder of these project folders, or None.

    `--build-dir projects` made build/<p>/ the project folder itself, and a build folder inside a
    project put hclbuild's files among the user's own, where a clean could delete what hclbuild
    never wrote: a build folder that is, or is inside, a project folder, or that holds projects, is
    refused before anything is made there.
    """
    root = os.path.abspath(build_root)
    for folder in projects:
        project = os.path.abspath(folder)
        # as strings: `in Path.parents` built a Path per parent, 9 ms of a no-op doit over 21 projects
        if root == project or root.startswith(project.rstrip(os.sep) + os.sep):
            return f"{build_root}: the build folder would be inside project folder {project}: choose another --build-dir"
    if os.path.isdir(root):
        held = sorted(child for child in Path(root).iterdir() if (child / "kernel.py").is_file())
        if held:
            return (
                f"{build_root}: the build folder would be a folder of projects (it holds {held[0]}): "
                "choose another --build-dir"
            )
    return None


def project_owner_problem(build_root: Path, name: str, folder: Path) -> str | None:
    """Why project `name` of `folder` cannot build in build_root/<name>/ (None: it may, and the folder
    is recorded as that build's owner): another folder of the same project name built there.
    `hclbuild report` run from two places mixed two projects' hls/ folders in one build/<name>/."""
    marker = Path(build_root) / name / PROJECT_OWNER_FILE
    project = str(Path(os.path.abspath(folder)))
    try:
        owner = marker.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        owner = ""
    except OSError:  # unreadable: refuse rather than build over what it may name
        return f"{marker}: cannot be read, so which project {name!r} builds there is unknown"
    if owner and owner != project:
        return (
            f"{Path(build_root) / name}/ is the build of project {name!r} of {owner}, not of {project}: "
            f"give one another [project] name, build with another --build-dir, or remove that build"
        )
    return None
