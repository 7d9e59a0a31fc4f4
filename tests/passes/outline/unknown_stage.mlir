// pass: outline
// args: {"groups": [["X"]], "names": ["Stage_X"], "unify": [false]}
module {
  func.func @main(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "D"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "B", hcl.stream = 2 : i64} : memref<4xi32>
    %alloc_0 = memref.alloc() {hcl.dtype = "int32", hcl.name = "C"} : memref<4xi32>
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %c1_i32 = arith.constant 1 : i32
      %1 = arith.addi %0, %c1_i32 : i32
      memref.store %1, %alloc[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %alloc[%arg2] : memref<4xi32>
      %c2_i32 = arith.constant 2 : i32
      %1 = arith.muli %0, %c2_i32 : i32
      memref.store %1, %alloc_0[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "C"}
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %alloc_0[%arg2] : memref<4xi32>
      %c3_i32 = arith.constant 3 : i32
      %1 = arith.subi %0, %c3_i32 : i32
      memref.store %1, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "D"}
    return
  }
}
// ----- error
APIError: outline: unknown stage 'X' in [X] (stages: B, C, D)
