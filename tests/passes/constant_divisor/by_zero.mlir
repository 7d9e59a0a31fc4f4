// pass: constant_divisor
// args: {}
module {
  func.func @top(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %c0_i32 = arith.constant 0 : i32
      %1 = arith.divsi %0, %c0_i32 : i32
      memref.store %1, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
}
// ----- error
CompileError: stage B: division by the constant 0
