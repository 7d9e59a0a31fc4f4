// pass: constant_divisor
// args: {}
module {
  func.func private @hcl_print_0(i32) attributes {hcl.arg_names = ["v0"], hcl.arg_types = ["int32"], hcl.print = "%d\0A"}
  func.func @top(%arg0: memref<8xi32>, %arg1: memref<4xi32>, %arg2: memref<4xi32>) attributes {hcl.arg_names = ["A", "Idx", "B"], hcl.arg_types = ["int32", "int32", "int32"], hcl.top} {
    affine.for %arg3 = 0 to 1 {
      %c0 = arith.constant 0 : index
      %0 = memref.load %arg0[%c0] : memref<8xi32>
      func.call @hcl_print_0(%0) : (i32) -> ()
    } {hcl.loop_name = "stage_stage", hcl.op_name = "stage"}
    affine.for %arg3 = 0 to 4 {
      %0 = memref.load %arg1[%arg3] : memref<4xi32>
      %1 = arith.extsi %0 : i32 to i64
      %2 = arith.index_cast %1 : i64 to index
      %3 = memref.load %arg0[%2] : memref<8xi32>
      %4 = memref.load %arg1[%arg3] : memref<4xi32>
      %5 = arith.divsi %3, %4 : i32
      memref.store %5, %arg2[%arg3] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
}
// ----- output
module {
  func.func private @hcl_print_0(i32) attributes {hcl.arg_names = ["v0"], hcl.arg_types = ["int32"], hcl.print = "%d\0A"}
  func.func @top(%arg0: memref<8xi32>, %arg1: memref<4xi32>, %arg2: memref<4xi32>) attributes {hcl.arg_names = ["A", "Idx", "B"], hcl.arg_types = ["int32", "int32", "int32"], hcl.top} {
    affine.for %arg3 = 0 to 1 {
      %c0 = arith.constant 0 : index
      %0 = memref.load %arg0[%c0] : memref<8xi32>
      func.call @hcl_print_0(%0) : (i32) -> ()
    } {hcl.loop_name = "stage_stage", hcl.op_name = "stage"}
    affine.for %arg3 = 0 to 4 {
      %0 = memref.load %arg1[%arg3] : memref<4xi32>
      %1 = arith.extsi %0 : i32 to i64
      %2 = arith.index_cast %1 : i64 to index
      %3 = memref.load %arg0[%2] : memref<8xi32>
      %4 = memref.load %arg1[%arg3] : memref<4xi32>
      %5 = arith.divsi %3, %4 : i32
      memref.store %5, %arg2[%arg3] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
}
