// pass: compute_at
// args: {"axis": "j", "consumer": "C", "producer": "B", "tensor": "B"}
module {
  func.func @top(%arg0: memref<2x3xi32>, %arg1: memref<2x3xi32>) attributes {hcl.arg_names = ["A", "C"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "B"} : memref<2x3xi32>
    affine.for %arg2 = 0 to 2 {
      affine.for %arg3 = 0 to 3 {
        %0 = memref.load %arg0[%arg2, %arg3] : memref<2x3xi32>
        %c1_i32 = arith.constant 1 : i32
        %1 = arith.addi %0, %c1_i32 : i32
        memref.store %1, %alloc[%arg2, %arg3] : memref<2x3xi32>
      } {hcl.loop_name = "j"}
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    affine.for %arg2 = 0 to 2 {
      affine.for %arg3 = 0 to 3 {
        %0 = memref.load %alloc[%arg2, %arg3] : memref<2x3xi32>
        %c2_i32 = arith.constant 2 : i32
        %1 = arith.muli %0, %c2_i32 : i32
        memref.store %1, %arg1[%arg2, %arg3] : memref<2x3xi32>
      } {hcl.loop_name = "j"}
    } {hcl.loop_name = "i", hcl.op_name = "C"}
    return
  }
}
// ----- output
module {
  func.func @top(%arg0: memref<2x3xi32>, %arg1: memref<2x3xi32>) attributes {hcl.arg_names = ["A", "C"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "B"} : memref<1x1xi32>
    affine.for %arg2 = 0 to 2 {
      affine.for %arg3 = 0 to 3 {
        %c0 = arith.constant 0 : index
        %0 = memref.load %arg0[%arg2, %arg3] : memref<2x3xi32>
        %c1_i32 = arith.constant 1 : i32
        %1 = arith.addi %0, %c1_i32 : i32
        memref.store %1, %alloc[%c0, %c0] : memref<1x1xi32>
        %c0_0 = arith.constant 0 : index
        %c0_1 = arith.constant 0 : index
        %2 = memref.load %alloc[%c0_0, %c0_1] : memref<1x1xi32>
        %c2_i32 = arith.constant 2 : i32
        %3 = arith.muli %2, %c2_i32 : i32
        memref.store %3, %arg1[%arg2, %arg3] : memref<2x3xi32>
      } {hcl.loop_name = "j"}
    } {hcl.loop_name = "i", hcl.op_name = "C"}
    return
  }
}
// result: [1, 1]
