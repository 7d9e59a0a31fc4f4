// pass: reserved_top
// args: {"top": "top"}
module {
  func.func @top(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "T"} : memref<4xi32>
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %1 = memref.load %arg0[%arg2] : memref<4xi32>
      %2 = arith.muli %0, %1 : i32
      memref.store %2, %alloc[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "T"}
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %alloc[%arg2] : memref<4xi32>
      %c3 = arith.constant 3 : index
      %1 = arith.subi %c3, %arg2 : index
      %2 = memref.load %alloc[%1] : memref<4xi32>
      %3 = arith.addi %0, %2 : i32
      memref.store %3, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
}
// ----- output
module {
  func.func @top(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {hcl.arg_names = ["A", "B"], hcl.arg_types = ["int32", "int32"], hcl.top} {
    %alloc = memref.alloc() {hcl.dtype = "int32", hcl.name = "T"} : memref<4xi32>
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %arg0[%arg2] : memref<4xi32>
      %1 = memref.load %arg0[%arg2] : memref<4xi32>
      %2 = arith.muli %0, %1 : i32
      memref.store %2, %alloc[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "T"}
    affine.for %arg2 = 0 to 4 {
      %0 = memref.load %alloc[%arg2] : memref<4xi32>
      %c3 = arith.constant 3 : index
      %1 = arith.subi %c3, %arg2 : index
      %2 = memref.load %alloc[%1] : memref<4xi32>
      %3 = arith.addi %0, %2 : i32
      memref.store %3, %arg1[%arg2] : memref<4xi32>
    } {hcl.loop_name = "i", hcl.op_name = "B"}
    return
  }
}
// result: "top"
