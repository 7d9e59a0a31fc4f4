// pass: buffer_at
// args: {"axis": "i", "buffer": "C_buffer_0", "stage": "C", "target": "C"}
module {
  func.func @top(%arg0: memref<2x3xi32>, %arg1: memref<3x2xi32>, %arg2: memref<2x2xi32>) attributes {hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["int32", "int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "sum_acc"} : memref<1xi32>
    affine.for %arg3 = 0 to 2 {
      affine.for %arg4 = 0 to 2 {
        %c0 = arith.constant 0 : index
        %c0_i32 = arith.constant 0 : i32
        memref.store %c0_i32, %alloc[%c0] : memref<1xi32>
        affine.for %arg5 = 0 to 3 {
          %c0_0 = arith.constant 0 : index
          %1 = memref.load %alloc[%c0_0] : memref<1xi32>
          %2 = memref.load %arg0[%arg3, %arg5] : memref<2x3xi32>
          %3 = memref.load %arg1[%arg5, %arg4] : memref<3x2xi32>
          %4 = arith.muli %2, %3 : i32
          %5 = arith.addi %1, %4 : i32
          memref.store %5, %alloc[%c0_0] : memref<1xi32>
        } {hcl.loop_name = "k"}
        %0 = memref.load %alloc[%c0] : memref<1xi32>
        memref.store %0, %arg2[%arg3, %arg4] : memref<2x2xi32>
      } {hcl.loop_name = "j"}
    } {hcl.loop_name = "i", hcl.op_name = "C"}
    return
  }
}
// ----- output
module {
  func.func @top(%arg0: memref<2x3xi32>, %arg1: memref<3x2xi32>, %arg2: memref<2x2xi32>) attributes {hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["int32", "int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "sum_acc"} : memref<1xi32>
    %alloc_0 = memref.alloc() {hcl.dtype = "int32", hcl.name = "C_buffer_0"} : memref<2xi32>
    affine.for %arg3 = 0 to 2 {
      affine.for %arg4 = 0 to 2 {
        %c0 = arith.constant 0 : index
        %c0_i32 = arith.constant 0 : i32
        memref.store %c0_i32, %alloc[%c0] : memref<1xi32>
        affine.for %arg5 = 0 to 3 {
          %c0_1 = arith.constant 0 : index
          %1 = memref.load %alloc[%c0_1] : memref<1xi32>
          %2 = memref.load %arg0[%arg3, %arg5] : memref<2x3xi32>
          %3 = memref.load %arg1[%arg5, %arg4] : memref<3x2xi32>
          %4 = arith.muli %2, %3 : i32
          %5 = arith.addi %1, %4 : i32
          memref.store %5, %alloc[%c0_1] : memref<1xi32>
        } {hcl.loop_name = "k"}
        %0 = memref.load %alloc[%c0] : memref<1xi32>
        memref.store %0, %alloc_0[%arg4] : memref<2xi32>
      } {hcl.loop_name = "j"}
      affine.for %arg4 = 0 to 2 {
        %0 = memref.load %alloc_0[%arg4] : memref<2xi32>
        memref.store %0, %arg2[%arg3, %arg4] : memref<2x2xi32>
      } {hcl.loop_name = "j_back", hcl.pipeline_ii = 1 : i32}
    } {hcl.loop_name = "i", hcl.op_name = "C"}
    return
  }
}
// result: [2]
