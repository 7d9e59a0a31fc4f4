// pass: reuse_at
// args: {"axis": "x", "buffer": "A_reuse_0", "reduction_loops": [], "stage": "B", "target": "A"}
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
// ----- output
module {
  func.func @top(%arg0: memref<6xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "A_reuse_0", hcl.partition = ["complete:0:0"], hcl.zero_init} : memref<3xi32>
    affine.for %arg2 = 0 to 6 {
      affine.for %arg3 = 0 to 2 {
        %c1 = arith.constant 1 : index
        %2 = arith.addi %arg3, %c1 : index
        %3 = memref.load %alloc[%2] : memref<3xi32>
        memref.store %3, %alloc[%arg3] : memref<3xi32>
      } {hcl.loop_name = "A_reuse_0_shift", hcl.unroll = 0 : i32}
      %0 = memref.load %arg0[%arg2] : memref<6xi32>
      %c2 = arith.constant 2 : index
      memref.store %0, %alloc[%c2] : memref<3xi32>
      %c2_0 = arith.constant 2 : index
      %1 = arith.cmpi sge, %arg2, %c2_0 : index
      scf.if %1 {
        %c2_1 = arith.constant 2 : index
        %2 = arith.subi %arg2, %c2_1 : index
        %c0 = arith.constant 0 : index
        %3 = memref.load %alloc[%c0] : memref<3xi32>
        %c1 = arith.constant 1 : index
        %4 = memref.load %alloc[%c1] : memref<3xi32>
        %5 = arith.addi %3, %4 : i32
        %c2_2 = arith.constant 2 : index
        %6 = memref.load %alloc[%c2_2] : memref<3xi32>
        %7 = arith.addi %5, %6 : i32
        memref.store %7, %arg1[%2] : memref<4xi32>
      }
    } {hcl.loop_name = "x", hcl.op_name = "B"}
    return
  }
}
// result: [3]
