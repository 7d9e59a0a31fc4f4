// pass: checked_division
// args: {}
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
        %13 = memref.load %arg0[%2] : memref<8xi32>
        scf.yield %13 : i32
      } else {
        %c8_0 = arith.constant 8 : index
        %13 = arith.cmpi uge, %2, %c8_0 : index
        scf.if %13 {
          %14 = arith.index_cast %2 : index to i64
          %c0_i64 = arith.constant 0 : i64
          %c2_i64 = arith.constant 2 : i64
          %c0_i64_2 = arith.constant 0 : i64
          func.call @hcl_probe(%c0_i64, %c2_i64, %c0_i64_2, %14) : (i64, i64, i64, i64) -> ()
        }
        %c0_i32_1 = arith.constant 0 : i32
        scf.yield %c0_i32_1 : i32
      }
      %5 = memref.load %arg1[%arg3] : memref<4xi32>
      %c0_i32 = arith.constant 0 : i32
      %6 = arith.cmpi eq, %5, %c0_i32 : i32
      %c-1_i32 = arith.constant -1 : i32
      %c1_i32 = arith.constant 1 : i32
      %c31_i32 = arith.constant 31 : i32
      %7 = arith.shli %c1_i32, %c31_i32 : i32
      %8 = arith.cmpi eq, %5, %c-1_i32 : i32
      %9 = arith.cmpi eq, %4, %7 : i32
      %10 = arith.andi %8, %9 : i1
      %11 = arith.ori %6, %10 : i1
      %12 = scf.if %11 -> (i32) {
        %c0_i64 = arith.constant 0 : i64
        %c1_i64 = arith.constant 1 : i64
        %13 = arith.select %6, %c0_i64, %c1_i64 : i64
        %c0_i64_0 = arith.constant 0 : i64
        %c3_i64 = arith.constant 3 : i64
        %c0_i64_1 = arith.constant 0 : i64
        func.call @hcl_probe(%c0_i64_0, %c3_i64, %13, %c0_i64_1) : (i64, i64, i64, i64) -> ()
        %c0_i32_2 = arith.constant 0 : i32
        scf.yield %c0_i32_2 : i32
      } else {
        %13 = arith.divsi %4, %5 : i32
        scf.yield %13 : i32
      }
      memref.store %12, %arg2[%arg3] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
}
// result: [{"check": 0, "function": "top", "messages": ["function top, stage B divides by zero", "function top, stage B divides the most negative 32-bit integer by -1 (the quotient overflows)"], "op": "arith.divsi", "stage": "B"}]
