// pass: stream_check
// args: {}
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
    %c0_i64 = arith.constant 0 : i64
    %c0_i64_1 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c0_i64_2 = arith.constant 0 : i64
    %c1_i64_3 = arith.constant 1 : i64
    %intptr = memref.extract_aligned_pointer_as_index %arg0 : memref<4xi32> -> index
    %0 = arith.index_cast %intptr : index to i64
    %intptr_4 = memref.extract_aligned_pointer_as_index %alloc : memref<4xi32> -> index
    %1 = arith.index_cast %intptr_4 : index to i64
    call @hcl_probe(%c0_i64, %c0_i64_1, %c0_i64_2, %0) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c0_i64, %c0_i64_1, %c1_i64_3, %1) : (i64, i64, i64, i64) -> ()
    call @Stage_B(%arg0, %alloc) {hcl.stages = ["B"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @hcl_probe(%c0_i64, %c1_i64, %c0_i64_2, %0) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c0_i64, %c1_i64, %c1_i64_3, %1) : (i64, i64, i64, i64) -> ()
    %c1_i64_5 = arith.constant 1 : i64
    %c0_i64_6 = arith.constant 0 : i64
    %c1_i64_7 = arith.constant 1 : i64
    %c0_i64_8 = arith.constant 0 : i64
    %c1_i64_9 = arith.constant 1 : i64
    %intptr_10 = memref.extract_aligned_pointer_as_index %alloc : memref<4xi32> -> index
    %2 = arith.index_cast %intptr_10 : index to i64
    %intptr_11 = memref.extract_aligned_pointer_as_index %alloc_0 : memref<4xi32> -> index
    %3 = arith.index_cast %intptr_11 : index to i64
    call @hcl_probe(%c1_i64_5, %c0_i64_6, %c0_i64_8, %2) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c1_i64_5, %c0_i64_6, %c1_i64_9, %3) : (i64, i64, i64, i64) -> ()
    call @Stage_C(%alloc, %alloc_0) {hcl.stages = ["C"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @hcl_probe(%c1_i64_5, %c1_i64_7, %c0_i64_8, %2) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c1_i64_5, %c1_i64_7, %c1_i64_9, %3) : (i64, i64, i64, i64) -> ()
    %c2_i64 = arith.constant 2 : i64
    %c0_i64_12 = arith.constant 0 : i64
    %c1_i64_13 = arith.constant 1 : i64
    %c0_i64_14 = arith.constant 0 : i64
    %c1_i64_15 = arith.constant 1 : i64
    %intptr_16 = memref.extract_aligned_pointer_as_index %alloc_0 : memref<4xi32> -> index
    %4 = arith.index_cast %intptr_16 : index to i64
    %intptr_17 = memref.extract_aligned_pointer_as_index %arg1 : memref<4xi32> -> index
    %5 = arith.index_cast %intptr_17 : index to i64
    call @hcl_probe(%c2_i64, %c0_i64_12, %c0_i64_14, %4) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c2_i64, %c0_i64_12, %c1_i64_15, %5) : (i64, i64, i64, i64) -> ()
    call @Stage_D(%alloc_0, %arg1) {hcl.stages = ["D"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @hcl_probe(%c2_i64, %c1_i64_13, %c0_i64_14, %4) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c2_i64, %c1_i64_13, %c1_i64_15, %5) : (i64, i64, i64, i64) -> ()
    return
  }
  func.func private @hcl_probe(i64, i64, i64, i64) attributes {hcl.arg_names = ["site", "phase", "arg", "ptr"], hcl.arg_types = ["int64", "int64", "int64", "int64"]}
}
// ----- output
module {
  func.func private @Stage_B(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_streams = ["", "write:2"], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["B"]} {
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %c1_i32 = arith.constant 1 : i32
      %1 = arith.addi %0, %c1_i32 : i32
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %2 = arith.muli %c0, %c4 : index
      %3 = arith.addi %2, %arg2 : index
      %4 = arith.index_cast %3 : index to i64
      %intptr = memref.extract_aligned_pointer_as_index %arg1 : memref<4xi32> -> index
      %c0_i64 = arith.constant 0 : i64
      %c4_i64 = arith.constant 4 : i64
      %5 = arith.index_cast %intptr : index to i64
      func.call @hcl_probe(%c0_i64, %c4_i64, %4, %5) : (i64, i64, i64, i64) -> ()
      memref.store %1, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
  func.func private @Stage_C(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["B", "C"], hcl.arg_streams = ["read:2", ""], hcl.arg_types = ["int32", "int32"], hcl.outlined, hcl.stages = ["C"]} {
    affine.for %arg2 = 0 to 4 {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %0 = arith.muli %c0, %c4 : index
      %1 = arith.addi %0, %arg2 : index
      %2 = arith.index_cast %1 : index to i64
      %intptr = memref.extract_aligned_pointer_as_index %arg0 : memref<4xi32> -> index
      %c1_i64 = arith.constant 1 : i64
      %c5_i64 = arith.constant 5 : i64
      %3 = arith.index_cast %intptr : index to i64
      func.call @hcl_probe(%c1_i64, %c5_i64, %2, %3) : (i64, i64, i64, i64) -> ()
      %4 = memref.load %arg0[%arg2] : memref<4xi32>
      %c2_i32 = arith.constant 2 : i32
      %5 = arith.muli %4, %c2_i32 : i32
      memref.store %5, %arg1[%arg2] : memref<4xi32>
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
    %c0_i64 = arith.constant 0 : i64
    %c0_i64_1 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c0_i64_2 = arith.constant 0 : i64
    %c1_i64_3 = arith.constant 1 : i64
    %intptr = memref.extract_aligned_pointer_as_index %arg0 : memref<4xi32> -> index
    %0 = arith.index_cast %intptr : index to i64
    %intptr_4 = memref.extract_aligned_pointer_as_index %alloc : memref<4xi32> -> index
    %1 = arith.index_cast %intptr_4 : index to i64
    call @hcl_probe(%c0_i64, %c0_i64_1, %c0_i64_2, %0) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c0_i64, %c0_i64_1, %c1_i64_3, %1) : (i64, i64, i64, i64) -> ()
    call @Stage_B(%arg0, %alloc) {hcl.stages = ["B"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @hcl_probe(%c0_i64, %c1_i64, %c0_i64_2, %0) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c0_i64, %c1_i64, %c1_i64_3, %1) : (i64, i64, i64, i64) -> ()
    %c1_i64_5 = arith.constant 1 : i64
    %c0_i64_6 = arith.constant 0 : i64
    %c1_i64_7 = arith.constant 1 : i64
    %c0_i64_8 = arith.constant 0 : i64
    %c1_i64_9 = arith.constant 1 : i64
    %intptr_10 = memref.extract_aligned_pointer_as_index %alloc : memref<4xi32> -> index
    %2 = arith.index_cast %intptr_10 : index to i64
    %intptr_11 = memref.extract_aligned_pointer_as_index %alloc_0 : memref<4xi32> -> index
    %3 = arith.index_cast %intptr_11 : index to i64
    call @hcl_probe(%c1_i64_5, %c0_i64_6, %c0_i64_8, %2) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c1_i64_5, %c0_i64_6, %c1_i64_9, %3) : (i64, i64, i64, i64) -> ()
    call @Stage_C(%alloc, %alloc_0) {hcl.stages = ["C"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @hcl_probe(%c1_i64_5, %c1_i64_7, %c0_i64_8, %2) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c1_i64_5, %c1_i64_7, %c1_i64_9, %3) : (i64, i64, i64, i64) -> ()
    %c2_i64 = arith.constant 2 : i64
    %c0_i64_12 = arith.constant 0 : i64
    %c1_i64_13 = arith.constant 1 : i64
    %c0_i64_14 = arith.constant 0 : i64
    %c1_i64_15 = arith.constant 1 : i64
    %intptr_16 = memref.extract_aligned_pointer_as_index %alloc_0 : memref<4xi32> -> index
    %4 = arith.index_cast %intptr_16 : index to i64
    %intptr_17 = memref.extract_aligned_pointer_as_index %arg1 : memref<4xi32> -> index
    %5 = arith.index_cast %intptr_17 : index to i64
    call @hcl_probe(%c2_i64, %c0_i64_12, %c0_i64_14, %4) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c2_i64, %c0_i64_12, %c1_i64_15, %5) : (i64, i64, i64, i64) -> ()
    call @Stage_D(%alloc_0, %arg1) {hcl.stages = ["D"]} : (memref<4xi32>, memref<4xi32>) -> ()
    call @hcl_probe(%c2_i64, %c1_i64_13, %c0_i64_14, %4) : (i64, i64, i64, i64) -> ()
    call @hcl_probe(%c2_i64, %c1_i64_13, %c1_i64_15, %5) : (i64, i64, i64, i64) -> ()
    return
  }
  func.func private @hcl_probe(i64, i64, i64, i64) attributes {hcl.arg_names = ["site", "phase", "arg", "ptr"], hcl.arg_types = ["int64", "int64", "int64", "int64"]}
}
// result: [{"check": 0, "function": "Stage_B", "kind": "write", "shape": [4], "stage": "B", "tensor": "B"}, {"check": 1, "function": "Stage_C", "kind": "read", "shape": [4], "stage": "C", "tensor": "B"}]
