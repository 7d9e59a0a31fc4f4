// pass: constant_subscript
// args: {}
module {
  func.func @top(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    affine.for %arg2 = 0 to 4 {
      %c3 = arith.constant 3 : index
      %0 = memref.load %arg0[%c3] : memref<4xi32>
      %c4 = arith.constant 4 : index
      %1 = memref.load %arg0[%c4] : memref<4xi32>
      %2 = arith.addi %0, %1 : i32
      memref.store %2, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
}
// ----- error
CompileError: stage B reads A outside its shape (4,): subscript 0 is the constant 4 (valid 0..3)
