// pass: reuse_at
// args: {"axis": "x", "buffer": "A_reuse_0", "reduction_loops": [], "stage": "B", "target": "Z"}
module {
  func.func @top(%arg0: memref<6xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<6xi32>
      %c1 = arith.constant 1 : index
      %1 = arith.addi %arg2, %c1 : index
      %2 = memref.load %arg0[%1] : memref<6xi32>
      %3 = arith.addi %0, %2 : i32
      %c2 = arith.constant 2 : index
      %4 = arith.addi %arg2, %c2 : index
      %5 = memref.load %arg0[%4] : memref<6xi32>
      %6 = arith.addi %3, %5 : i32
      memref.store %6, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "x", hcl.op_name = "B"}
    return
  }
}
// ----- error
APIError: reuse_at: @top has no tensor 'Z'
