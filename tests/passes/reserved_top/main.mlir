// pass: reserved_top
// args: {"top": "main"}
module {
  func.func private @Stage_B(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_streams = ["", "write:2"], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["B"]} {
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %c1_i32 = arith.constant 1 : i32
      %1 = arith.addi %0, %c1_i32 : i32
      memref.store %1, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
  func.func private @Stage_C(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["B", "C"], hcl.arg_streams = ["read:2", ""], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["C"]} {
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
  func.func @main(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "D"], hcl.arg_types = ["int32", "int32"], hcl.dataflow, hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "B", hcl.stream = 2 : i64} : memref<4xi32>
    %alloc_0 = memref.alloc() {hcl.dtype = "int32", hcl.name = "C"} : memref<4xi32>
    call @Stage_B(%arg0, %alloc) {hcl.stages = ["B"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @Stage_C(%alloc, %alloc_0) {hcl.stages = ["C"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @Stage_D(%alloc_0, %arg1) {hcl.stages = ["D"]} : (memref<4xi32>, memref<4xi32>) -> ()
    return
  }
}
// ----- output
module {
  func.func private @Stage_B(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_streams = ["", "write:2"], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["B"]} {
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %c1_i32 = arith.constant 1 : i32
      %1 = arith.addi %0, %c1_i32 : i32
      memref.store %1, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
  func.func private @Stage_C(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["B", "C"], hcl.arg_streams = ["read:2", ""], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["C"]} {
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
  func.func @top(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "D"], hcl.arg_types = ["int32", "int32"], hcl.dataflow, hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "B", hcl.stream = 2 : i64} : memref<4xi32>
    %alloc_0 = memref.alloc() {hcl.dtype = "int32", hcl.name = "C"} : memref<4xi32>
    call @Stage_B(%arg0, %alloc) {hcl.stages = ["B"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @Stage_C(%alloc, %alloc_0) {hcl.stages = ["C"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @Stage_D(%alloc_0, %arg1) {hcl.stages = ["D"]} : (memref<4xi32>, memref<4xi32>) -> ()
    return
  }
}
// result: "top"
