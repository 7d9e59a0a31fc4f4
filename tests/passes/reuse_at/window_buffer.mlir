// pass: reuse_at
// args: {"axis": "x", "buffer": "WB", "reduction_loops": ["c", "r"], "stage": "B", "target": "LB"}
module {
  func.func @top(%arg0: memref<4x4xi32>, %arg1: memref<3x3xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "sum_acc"} : memref<1xi32>
    %alloc_0 = memref.alloc() {hcl.dtype = "int32", hcl.name = "LB", hcl.partition = ["complete:1:0"]} : memref<2x4xi32>
    affine.for %arg2 = 0 to 4 {
      affine.for %arg3 = 0 to 4 {
        %c1_1 = arith.constant 1 : index
        %1 = memref.load %alloc_0[%c1_1, %arg3] : memref<2x4xi32>
        %c0 = arith.constant 0 : index
        memref.store %1, %alloc_0[%c0, %arg3] : memref<2x4xi32>
        %2 = memref.load %arg0[%arg2, %arg3] : memref<4x4xi32>
        %c1_2 = arith.constant 1 : index
        memref.store %2, %alloc_0[%c1_2, %arg3] : memref<2x4xi32>
      } {hcl.loop_name = "LB_x", hcl.reuse_fill = 1 : i64}
      %c1 = arith.constant 1 : index
      %0 = arith.cmpi sge, %arg2, %c1 : index
      scf.if %0 {
        %c1_1 = arith.constant 1 : index
        %1 = arith.subi %arg2, %c1_1 : index
        affine.for %arg3 = 0 to 3 {
          %c0 = arith.constant 0 : index
          %c0_i32 = arith.constant 0 : i32
          memref.store %c0_i32, %alloc[%c0] : memref<1xi32>
          affine.for %arg4 = 0 to 2 {
            affine.for %arg5 = 0 to 2 {
              %c0_2 = arith.constant 0 : index
              %3 = memref.load %alloc[%c0_2] : memref<1xi32>
              %4 = arith.addi %arg3, %arg5 : index
              %5 = memref.load %alloc_0[%arg4, %4] : memref<2x4xi32>
              %6 = arith.addi %3, %5 : i32
              memref.store %6, %alloc[%c0_2] : memref<1xi32>
            } {hcl.loop_name = "c"}
          } {hcl.loop_name = "r"}
          %2 = memref.load %alloc[%c0] : memref<1xi32>
          memref.store %2, %arg1[%1, %arg3] : memref<3x3xi32>
        } {hcl.loop_name = "x"}
      }
    } {hcl.loop_name = "y", hcl.op_name = "B"}
    return
  }
}
// ----- output
module {
  func.func @top(%arg0: memref<4x4xi32>, %arg1: memref<3x3xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "sum_acc"} : memref<1xi32>
    %alloc_0 = memref.alloc() {hcl.dtype = "int32", hcl.name = "LB", hcl.partition = ["complete:1:0"]} : memref<2x4xi32>
    %alloc_1 = memref.alloc() {hcl.dtype = "int32", hcl.name = "WB", hcl.partition = ["complete:0:0"], hcl.zero_init} : memref<2x2xi32>
    affine.for %arg2 = 0 to 4 {
      affine.for %arg3 = 0 to 4 {
        %c1_2 = arith.constant 1 : index
        %1 = memref.load %alloc_0[%c1_2, %arg3] : memref<2x4xi32>
        %c0 = arith.constant 0 : index
        memref.store %1, %alloc_0[%c0, %arg3] : memref<2x4xi32>
        %2 = memref.load %arg0[%arg2, %arg3] : memref<4x4xi32>
        %c1_3 = arith.constant 1 : index
        memref.store %2, %alloc_0[%c1_3, %arg3] : memref<2x4xi32>
      } {hcl.loop_name = "LB_x", hcl.reuse_fill = 1 : i64}
      %c1 = arith.constant 1 : index
      %0 = arith.cmpi sge, %arg2, %c1 : index
      scf.if %0 {
        %c1_2 = arith.constant 1 : index
        %1 = arith.subi %arg2, %c1_2 : index
        affine.for %arg3 = 0 to 4 {
          affine.for %arg4 = 0 to 2 {
            %c1_4 = arith.constant 1 : index
            %3 = memref.load %alloc_1[%arg4, %c1_4] : memref<2x2xi32>
            %c0 = arith.constant 0 : index
            memref.store %3, %alloc_1[%arg4, %c0] : memref<2x2xi32>
            %4 = memref.load %alloc_0[%arg4, %arg3] : memref<2x4xi32>
            %c1_5 = arith.constant 1 : index
            memref.store %4, %alloc_1[%arg4, %c1_5] : memref<2x2xi32>
          } {hcl.loop_name = "WB_d0", hcl.unroll = 0 : i32}
          %c1_3 = arith.constant 1 : index
          %2 = arith.cmpi sge, %arg3, %c1_3 : index
          scf.if %2 {
            %c1_4 = arith.constant 1 : index
            %3 = arith.subi %arg3, %c1_4 : index
            %c0 = arith.constant 0 : index
            %c0_i32 = arith.constant 0 : i32
            memref.store %c0_i32, %alloc[%c0] : memref<1xi32>
            affine.for %arg4 = 0 to 2 {
              affine.for %arg5 = 0 to 2 {
                %c0_5 = arith.constant 0 : index
                %5 = memref.load %alloc[%c0_5] : memref<1xi32>
                %6 = memref.load %alloc_1[%arg4, %arg5] : memref<2x2xi32>
                %7 = arith.addi %5, %6 : i32
                memref.store %7, %alloc[%c0_5] : memref<1xi32>
              } {hcl.loop_name = "c"}
            } {hcl.loop_name = "r"}
            %4 = memref.load %alloc[%c0] : memref<1xi32>
            memref.store %4, %arg1[%1, %3] : memref<3x3xi32>
          }
        } {hcl.loop_name = "x"}
      }
    } {hcl.loop_name = "y", hcl.op_name = "B"}
    return
  }
}
// result: [2, 2]
