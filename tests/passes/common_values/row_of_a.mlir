// pass: common_values
// args: {}
module {
  func.func @top(%arg0: memref<2x3xi32>, %arg1: memref<3x4xi32>, %arg2: memref<2x4xi32>) attributes {hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["int32", "int32", "int32"], hcl.top} {
    affine.for %arg3 = 0 to 2 {
      affine.for %arg4 = 0 to 3 {
        affine.for %arg5 = 0 to 4 {
          %0 = memref.load %arg2[%arg3, %arg5] : memref<2x4xi32>
          %1 = memref.load %arg0[%arg3, %arg4] : memref<2x3xi32>
          %2 = memref.load %arg1[%arg4, %arg5] : memref<3x4xi32>
          %3 = arith.muli %1, %2 : i32
          %4 = arith.addi %0, %3 : i32
          memref.store %4, %arg2[%arg3, %arg5] : memref<2x4xi32>
        } {hcl.loop_name = "j", hcl.pipeline_ii = 1 : i32}
      } {hcl.loop_name = "k"}
    } {hcl.loop_name = "i", hcl.op_name = "S"}
    return
  }
}
// ----- output
module {
  func.func @top(%arg0: memref<2x3xi32>, %arg1: memref<3x4xi32>, %arg2: memref<2x4xi32>) attributes {hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["int32", "int32", "int32"], hcl.top} {
    affine.for %arg3 = 0 to 2 {
      affine.for %arg4 = 0 to 3 {
        affine.for %arg5 = 0 to 4 {
          %0 = memref.load %arg2[%arg3, %arg5] : memref<2x4xi32>
          %1 = memref.load %arg0[%arg3, %arg4] : memref<2x3xi32>
          %2 = memref.load %arg1[%arg4, %arg5] : memref<3x4xi32>
          %3 = arith.muli %1, %2 : i32
          %4 = arith.addi %0, %3 : i32
          memref.store %4, %arg2[%arg3, %arg5] : memref<2x4xi32>
        } {hcl.loop_name = "j", hcl.pipeline_ii = 1 : i32}
      } {hcl.loop_name = "k"}
    } {hcl.loop_name = "i", hcl.op_name = "S"}
    return
  }
}
