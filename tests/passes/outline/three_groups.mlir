// pass: outline
// args: {"groups": [["B"], ["C"], ["D"]], "names": ["Stage_B", "Stage_C", "Stage_D"], "unify": [false, false, false]}
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
// ----- output
module {
  func.func private @Stage_B(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["B"]} {
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %c1_i32 = arith.constant 1 : i32
      %1 = arith.addi %0, %c1_i32 : i32
      memref.store %1, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
  func.func private @Stage_C(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["B", "C"], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["C"]} {
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %c2_i32 = arith.constant 2 : i32
      %1 = arith.muli %0, %c2_i32 : i32
      memref.store %1, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "C"}
    return
  }
  func.func private @Stage_D(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["C", "D"], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["D"]} {
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %c3_i32 = arith.constant 3 : i32
      %1 = arith.subi %0, %c3_i32 : i32
      memref.store %1, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "D"}
    return
  }
  func.func @main(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "D"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "B", hcl.stream = 2 : i64} : memref<4xi32>
    %alloc_0 = memref.alloc() {hcl.dtype = "int32", hcl.name = "C"} : memref<4xi32>
    call @Stage_B(%arg0, %alloc) {hcl.stages = ["B"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @Stage_C(%alloc, %alloc_0) {hcl.stages = ["C"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @Stage_D(%alloc_0, %arg1) {hcl.stages = ["D"]} : (memref<4xi32>, memref<4xi32>) -> ()
    return
  }
}
// result: ["Stage_B", "Stage_C", "Stage_D"]
