// pass: bounds_check
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
  func.func private @hcl_probe(i64, i64, i64, i64)
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
      %c8 = arith.constant 8 : index
      %3 = arith.cmpi ult, %2, %c8 : index
      %4 = scf.if %3 -> (i32) {
        %7 = memref.load %arg0[%2] : memref<8xi32>
        scf.yield %7 : i32
      } else {
        %c8_0 = arith.constant 8 : index
        %7 = arith.cmpi uge, %2, %c8_0 : index
        scf.if %7 {
          %8 = arith.index_cast %2 : index to i64
          %c0_i64 = arith.constant 0 : i64
          %c2_i64 = arith.constant 2 : i64
          %c0_i64_1 = arith.constant 0 : i64
          func.call @hcl_probe(%c0_i64, %c2_i64, %c0_i64_1, %8) : (i64, i64, i64, i64) -> ()
        }
        %c0_i32 = arith.constant 0 : i32
        scf.yield %c0_i32 : i32
      }
      %5 = memref.load %arg1[%arg3] : memref<4xi32>
      %6 = arith.divsi %4, %5 : i32
      memref.store %6, %arg2[%arg3] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
}
// result: [{"check": 0, "function": "top", "kind": "load", "shape": [8], "stage": "B", "tensor": "A"}]
