"""Render a build's result files for people and for CI: one package, reading only result files (the
summary.json project.report_files writes from csim, estimate and csynth results), so a build folder or a
saved summary renders and compares without recompiling anything.

    summary         summary.json's records: verdicts, csynth and estimated Figures per function
    markdown        report.md tables (csynth summary, estimated QoR beside csynth with its error)
    html            report.html of a project, index.html of a build folder (self-contained pages)
    function_graph  the function graph of report.html as inline SVG (streams dashed)
    graph           the design graph as DOT, SVG through Graphviz, or PNG through matplotlib
    charts          csynth latency and utilization per function as PNG (matplotlib)
    pictures        the picture files of a reports folder, and report.md's links to them
    compare         two builds' summaries side by side; thresholds crossed; GitLab metrics
    thresholds      the `--fail-on` / `[ci] fail_on` grammar (standard library only)

Nothing is imported here: project.config reads `thresholds` on every doit run.
"""
