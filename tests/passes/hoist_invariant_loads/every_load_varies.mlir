// pass: hoist_invariant_loads
// args: {}
module {
  func.func @top(%arg0: memref<3x2x4xi32>, %arg1: memref<2x4xi32>) attributes {hcl.arg_names = ["rgb", "gray"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    affine.for %arg2 = 0 to 2 {
      affine.for %arg3 = 0 to 4 {
        %c0 = arith.constant 0 : index
        %0 = memref.load %arg0[%c0, %arg2, %arg3] : memref<3x2x4xi32>
        %c1 = arith.constant 1 : index
        %1 = memref.load %arg0[%c1, %arg2, %arg3] : memref<3x2x4xi32>
        %2 = arith.addi %0, %1 : i32
        %c2 = arith.constant 2 : index
        %3 = memref.load %arg0[%c2, %arg2, %arg3] : memref<3x2x4xi32>
        %4 = arith.addi %2, %3 : i32
        memref.store %4, %arg1[%arg2, %arg3] : memref<2x4xi32>
      } {hcl.loop_name = "x", hcl.pipeline_ii = 1 : i32}
    } {hcl.loop_name = "y", hcl.op_name = "gray"}
    return
  }
}
// ----- output
module {
  func.func @top(%arg0: memref<3x2x4xi32>, %arg1: memref<2x4xi32>) attributes {hcl.arg_names = ["rgb", "gray"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    affine.for %arg2 = 0 to 2 {
      affine.for %arg3 = 0 to 4 {
        %c0 = arith.constant 0 : index
        %0 = memref.load %arg0[%c0, %arg2, %arg3] : memref<3x2x4xi32>
        %c1 = arith.constant 1 : index
        %1 = memref.load %arg0[%c1, %arg2, %arg3] : memref<3x2x4xi32>
        %2 = arith.addi %0, %1 : i32
        %c2 = arith.constant 2 : index
        %3 = memref.load %arg0[%c2, %arg2, %arg3] : memref<3x2x4xi32>
        %4 = arith.addi %2, %3 : i32
        memref.store %4, %arg1[%arg2, %arg3] : memref<2x4xi32>
      } {hcl.loop_name = "x", hcl.pipeline_ii = 1 : i32}
    } {hcl.loop_name = "y", hcl.op_name = "gray"}
    return
  }
}
// result: 0
