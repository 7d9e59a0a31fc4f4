// pass: outline_axis
// args: {"axis": "rows1", "function": "Stage_rows1", "stage": "rows1", "unify": false}
module {
  func.func @top(%arg0: memref<2x4xi32>, %arg1: memref<2x4xi32>, %arg2: memref<2x4xi32>) attributes {hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["int32", "int32", "int32"], hcl.top} {
    affine.for %arg3 = 0 to 2 {
      affine.for %arg4 = 0 to 3 {
        %0 = memref.load %arg0[%arg3, %arg4] : memref<2x4xi32>
        %c2_i32 = arith.constant 2 : i32
        %1 = arith.muli %0, %c2_i32 : i32
        memref.store %1, %arg1[%arg3, %arg4] : memref<2x4xi32>
      } {hcl.loop_name = "cols1"}
    } {hcl.loop_name = "rows1", hcl.op_name = "rows1"}
    affine.for %arg3 = 0 to 2 {
      affine.for %arg4 = 0 to 4 {
        %0 = memref.load %arg0[%arg3, %arg4] : memref<2x4xi32>
        %c2_i32 = arith.constant 2 : i32
        %1 = arith.muli %0, %c2_i32 : i32
        memref.store %1, %arg2[%arg3, %arg4] : memref<2x4xi32>
      } {hcl.loop_name = "cols2"}
    } {hcl.loop_name = "rows2", hcl.op_name = "rows2"}
    return
  }
}
// ----- output
module {
  func.func private @Stage_rows1(%arg0: memref<2x4xi32>, %arg1: memref<2x4xi32>, %arg2: index) attributes {hcl.arg_names = ["A", "B", "rows1"], hcl.arg_types = ["int32", "int32", "index"], hcl.outline_axis = {loop = "rows1", stage = "rows1"}, hcl.outlined} {
    affine.for %arg3 = 0 to 3 {
      %0 = memref.load %arg0[%arg2, %arg3] : memref<2x4xi32>
      %c2_i32 = arith.constant 2 : i32
      %1 = arith.muli %0, %c2_i32 : i32
      memref.store %1, %arg1[%arg2, %arg3] : memref<2x4xi32>
    } {hcl.loop_name = "cols1"}
    return
  }
  func.func @top(%arg0: memref<2x4xi32>, %arg1: memref<2x4xi32>, %arg2: memref<2x4xi32>) attributes {hcl.arg_names = ["A", "B", "C"], hcl.arg_types = ["int32", "int32", "int32"], hcl.top} {
    affine.for %arg3 = 0 to 2 {
      func.call @Stage_rows1(%arg0, %arg1, %arg3) {hcl.stages = ["rows1"]} : (memref<2x4xi32>, memref<2x4xi32>, index) -> ()
    } {hcl.loop_name = "rows1", hcl.op_name = "rows1"}
    affine.for %arg3 = 0 to 2 {
      affine.for %arg4 = 0 to 4 {
        %0 = memref.load %arg0[%arg3, %arg4] : memref<2x4xi32>
        %c2_i32 = arith.constant 2 : i32
        %1 = arith.muli %0, %c2_i32 : i32
        memref.store %1, %arg2[%arg3, %arg4] : memref<2x4xi32>
      } {hcl.loop_name = "cols2"}
    } {hcl.loop_name = "rows2", hcl.op_name = "rows2"}
    return
  }
}
// result: "Stage_rows1"
