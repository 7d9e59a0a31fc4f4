"""hclbuild's QoR estimate: each function's latency, II, loops and resources from the MLIR after
outlining, calibrated on real Vitis HLS reports (calibration/, docs/calibration.md; issue 26).

`estimate_module(module, part=, clock_ns=, vitis_version=)` -> {function name: FunctionEstimate}.
Every figure is a model's: whatever shows one labels it "estimated".

- records.py: FunctionEstimate / LoopEstimate / Resources and their JSON
- devices.py: part -> family, operator latency / delay / DSP tables with their provenance
- operators.py: what one MLIR op costs
- structure.py: a function's memories and loop tree (labels as the emitter writes them)
- schedule.py: one iteration scheduled (chaining, ports, recurrences)
- loops.py: pipelining / unrolling / flattening decisions and loop latencies
- resources.py: DSP, BRAM_18K, FF, LUT
- function.py: functions, calls and dataflow regions; estimate_module
"""

from hclbuild.compiler.estimate.function import estimate_module
from hclbuild.compiler.estimate.records import MODEL_VERSION, FunctionEstimate, LoopEstimate, Resources

__all__ = ["MODEL_VERSION", "FunctionEstimate", "LoopEstimate", "Resources", "estimate_module"]
