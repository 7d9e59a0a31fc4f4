// pass: split_llvm_units
// args: {}
module {
  llvm.func @calloc(i64, i64) -> !llvm.ptr
  llvm.func @free(!llvm.ptr)
  llvm.func internal @_mlir_memref_to_llvm_alloc(%arg0: i64) -> !llvm.ptr {
    %0 = llvm.mlir.constant(1 : i64) : i64
    %1 = llvm.call @calloc(%0, %arg0) : (i64, i64) -> !llvm.ptr
    llvm.return %1 : !llvm.ptr
  }
  llvm.func internal @_mlir_memref_to_llvm_free(%arg0: !llvm.ptr) {
    llvm.call @free(%arg0) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @Stage_B(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: !llvm.ptr, %arg6: !llvm.ptr, %arg7: i64, %arg8: i64, %arg9: i64) attributes {passthrough = ["optnone", "noinline"], sym_visibility = "private"} {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %1 = llvm.insertvalue %arg5, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %2 = llvm.insertvalue %arg6, %1[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %3 = llvm.insertvalue %arg7, %2[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %4 = llvm.insertvalue %arg8, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %5 = llvm.insertvalue %arg9, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %6 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %7 = llvm.insertvalue %arg0, %6[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %8 = llvm.insertvalue %arg1, %7[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %9 = llvm.insertvalue %arg2, %8[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.insertvalue %arg3, %9[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.insertvalue %arg4, %10[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %12 = llvm.mlir.constant(4 : i64) : i64
    %13 = llvm.mlir.constant(0 : i64) : i64
    %14 = llvm.mlir.constant(1 : i32) : i32
    %15 = llvm.mlir.constant(0 : index) : i64
    %16 = llvm.mlir.constant(4 : index) : i64
    %17 = llvm.mlir.constant(1 : index) : i64
    llvm.br ^bb1(%15 : i64)
  ^bb1(%18: i64):  // 2 preds: ^bb0, ^bb2
    %19 = llvm.icmp "slt" %18, %16 : i64
    llvm.cond_br %19, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %20 = llvm.extractvalue %11[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %21 = llvm.getelementptr inbounds|nuw %20[%18] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %22 = llvm.load %21 : !llvm.ptr -> i32
    %23 = llvm.add %22, %14 : i32
    %24 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %25 = llvm.ptrtoint %24 : !llvm.ptr to i64
    llvm.call @hcl_probe(%13, %12, %18, %25) : (i64, i64, i64, i64) -> ()
    %26 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %27 = llvm.getelementptr inbounds|nuw %26[%18] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    llvm.store %23, %27 : i32, !llvm.ptr
    %28 = llvm.add %18, %17 : i64
    llvm.br ^bb1(%28 : i64)
  ^bb3:  // pred: ^bb1
    llvm.return
  }
  llvm.func @Stage_C(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: !llvm.ptr, %arg6: !llvm.ptr, %arg7: i64, %arg8: i64, %arg9: i64) attributes {passthrough = ["optnone", "noinline"], sym_visibility = "private"} {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %1 = llvm.insertvalue %arg5, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %2 = llvm.insertvalue %arg6, %1[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %3 = llvm.insertvalue %arg7, %2[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %4 = llvm.insertvalue %arg8, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %5 = llvm.insertvalue %arg9, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %6 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %7 = llvm.insertvalue %arg0, %6[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %8 = llvm.insertvalue %arg1, %7[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %9 = llvm.insertvalue %arg2, %8[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.insertvalue %arg3, %9[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.insertvalue %arg4, %10[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %12 = llvm.mlir.constant(2 : i32) : i32
    %13 = llvm.mlir.constant(5 : i64) : i64
    %14 = llvm.mlir.constant(1 : i64) : i64
    %15 = llvm.mlir.constant(0 : index) : i64
    %16 = llvm.mlir.constant(4 : index) : i64
    %17 = llvm.mlir.constant(1 : index) : i64
    llvm.br ^bb1(%15 : i64)
  ^bb1(%18: i64):  // 2 preds: ^bb0, ^bb2
    %19 = llvm.icmp "slt" %18, %16 : i64
    llvm.cond_br %19, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %20 = llvm.extractvalue %11[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %21 = llvm.ptrtoint %20 : !llvm.ptr to i64
    llvm.call @hcl_probe(%14, %13, %18, %21) : (i64, i64, i64, i64) -> ()
    %22 = llvm.extractvalue %11[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %23 = llvm.getelementptr inbounds|nuw %22[%18] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %24 = llvm.load %23 : !llvm.ptr -> i32
    %25 = llvm.mul %24, %12 : i32
    %26 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %27 = llvm.getelementptr inbounds|nuw %26[%18] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    llvm.store %25, %27 : i32, !llvm.ptr
    %28 = llvm.add %18, %17 : i64
    llvm.br ^bb1(%28 : i64)
  ^bb3:  // pred: ^bb1
    llvm.return
  }
  llvm.func @Stage_D(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: !llvm.ptr, %arg6: !llvm.ptr, %arg7: i64, %arg8: i64, %arg9: i64) attributes {passthrough = ["optnone", "noinline"], sym_visibility = "private"} {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %1 = llvm.insertvalue %arg5, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %2 = llvm.insertvalue %arg6, %1[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %3 = llvm.insertvalue %arg7, %2[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %4 = llvm.insertvalue %arg8, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %5 = llvm.insertvalue %arg9, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %6 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %7 = llvm.insertvalue %arg0, %6[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %8 = llvm.insertvalue %arg1, %7[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %9 = llvm.insertvalue %arg2, %8[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.insertvalue %arg3, %9[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.insertvalue %arg4, %10[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %12 = llvm.mlir.constant(3 : i32) : i32
    %13 = llvm.mlir.constant(0 : index) : i64
    %14 = llvm.mlir.constant(4 : index) : i64
    %15 = llvm.mlir.constant(1 : index) : i64
    llvm.br ^bb1(%13 : i64)
  ^bb1(%16: i64):  // 2 preds: ^bb0, ^bb2
    %17 = llvm.icmp "slt" %16, %14 : i64
    llvm.cond_br %17, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %18 = llvm.extractvalue %11[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %19 = llvm.getelementptr inbounds|nuw %18[%16] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %20 = llvm.load %19 : !llvm.ptr -> i32
    %21 = llvm.sub %20, %12 : i32
    %22 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %23 = llvm.getelementptr inbounds|nuw %22[%16] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    llvm.store %21, %23 : i32, !llvm.ptr
    %24 = llvm.add %16, %15 : i64
    llvm.br ^bb1(%24 : i64)
  ^bb3:  // pred: ^bb1
    llvm.return
  }
  llvm.func @top(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: !llvm.ptr, %arg6: !llvm.ptr, %arg7: i64, %arg8: i64, %arg9: i64) attributes {llvm.emit_c_interface, passthrough = ["optnone", "noinline"]} {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %1 = llvm.insertvalue %arg5, %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %2 = llvm.insertvalue %arg6, %1[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %3 = llvm.insertvalue %arg7, %2[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %4 = llvm.insertvalue %arg8, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %5 = llvm.insertvalue %arg9, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %6 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %7 = llvm.insertvalue %arg0, %6[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %8 = llvm.insertvalue %arg1, %7[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %9 = llvm.insertvalue %arg2, %8[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.insertvalue %arg3, %9[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.insertvalue %arg4, %10[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %12 = llvm.mlir.constant(2 : i64) : i64
    %13 = llvm.mlir.constant(1 : i64) : i64
    %14 = llvm.mlir.constant(0 : i64) : i64
    %15 = llvm.mlir.constant(4 : index) : i64
    %16 = llvm.mlir.constant(1 : index) : i64
    %17 = llvm.mlir.zero : !llvm.ptr
    %18 = llvm.getelementptr %17[4] : (!llvm.ptr) -> !llvm.ptr, i32
    %19 = llvm.ptrtoint %18 : !llvm.ptr to i64
    %20 = llvm.call @_mlir_memref_to_llvm_alloc(%19) : (i64) -> !llvm.ptr
    %21 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %22 = llvm.insertvalue %20, %21[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %23 = llvm.insertvalue %20, %22[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %24 = llvm.mlir.constant(0 : index) : i64
    %25 = llvm.insertvalue %24, %23[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %26 = llvm.insertvalue %15, %25[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %27 = llvm.insertvalue %16, %26[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %28 = llvm.mlir.constant(4 : index) : i64
    %29 = llvm.mlir.constant(1 : index) : i64
    %30 = llvm.mlir.zero : !llvm.ptr
    %31 = llvm.getelementptr %30[4] : (!llvm.ptr) -> !llvm.ptr, i32
    %32 = llvm.ptrtoint %31 : !llvm.ptr to i64
    %33 = llvm.call @_mlir_memref_to_llvm_alloc(%32) : (i64) -> !llvm.ptr
    %34 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %35 = llvm.insertvalue %33, %34[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %36 = llvm.insertvalue %33, %35[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %37 = llvm.mlir.constant(0 : index) : i64
    %38 = llvm.insertvalue %37, %36[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %39 = llvm.insertvalue %28, %38[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %40 = llvm.insertvalue %29, %39[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %41 = llvm.extractvalue %11[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %42 = llvm.ptrtoint %41 : !llvm.ptr to i64
    %43 = llvm.ptrtoint %20 : !llvm.ptr to i64
    llvm.call @hcl_probe(%14, %14, %14, %42) : (i64, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%14, %14, %13, %43) : (i64, i64, i64, i64) -> ()
    %44 = llvm.extractvalue %11[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %45 = llvm.extractvalue %11[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %46 = llvm.extractvalue %11[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %47 = llvm.extractvalue %11[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %48 = llvm.extractvalue %11[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %49 = llvm.extractvalue %27[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %50 = llvm.extractvalue %27[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %51 = llvm.extractvalue %27[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %52 = llvm.extractvalue %27[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %53 = llvm.extractvalue %27[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    llvm.call @Stage_B(%44, %45, %46, %47, %48, %49, %50, %51, %52, %53) {hcl.stages = ["B"]} : (!llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%14, %13, %14, %42) : (i64, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%14, %13, %13, %43) : (i64, i64, i64, i64) -> ()
    %54 = llvm.ptrtoint %33 : !llvm.ptr to i64
    llvm.call @hcl_probe(%13, %14, %14, %43) : (i64, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%13, %14, %13, %54) : (i64, i64, i64, i64) -> ()
    %55 = llvm.extractvalue %27[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %56 = llvm.extractvalue %27[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %57 = llvm.extractvalue %27[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %58 = llvm.extractvalue %27[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %59 = llvm.extractvalue %27[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %60 = llvm.extractvalue %40[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %61 = llvm.extractvalue %40[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %62 = llvm.extractvalue %40[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %63 = llvm.extractvalue %40[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %64 = llvm.extractvalue %40[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    llvm.call @Stage_C(%55, %56, %57, %58, %59, %60, %61, %62, %63, %64) {hcl.stages = ["C"]} : (!llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%13, %13, %14, %43) : (i64, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%13, %13, %13, %54) : (i64, i64, i64, i64) -> ()
    %65 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %66 = llvm.ptrtoint %65 : !llvm.ptr to i64
    llvm.call @hcl_probe(%12, %14, %14, %54) : (i64, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%12, %14, %13, %66) : (i64, i64, i64, i64) -> ()
    %67 = llvm.extractvalue %40[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %68 = llvm.extractvalue %40[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %69 = llvm.extractvalue %40[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %70 = llvm.extractvalue %40[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %71 = llvm.extractvalue %40[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %72 = llvm.extractvalue %5[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %73 = llvm.extractvalue %5[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %74 = llvm.extractvalue %5[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %75 = llvm.extractvalue %5[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %76 = llvm.extractvalue %5[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    llvm.call @Stage_D(%67, %68, %69, %70, %71, %72, %73, %74, %75, %76) {hcl.stages = ["D"]} : (!llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%12, %13, %14, %54) : (i64, i64, i64, i64) -> ()
    llvm.call @hcl_probe(%12, %13, %13, %66) : (i64, i64, i64, i64) -> ()
    llvm.call @_mlir_memref_to_llvm_free(%20) : (!llvm.ptr) -> ()
    llvm.call @_mlir_memref_to_llvm_free(%33) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @_mlir_ciface_top(%arg0: !llvm.ptr, %arg1: !llvm.ptr) attributes {llvm.emit_c_interface, passthrough = ["optnone", "noinline"]} {
    %0 = llvm.load %arg0 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %1 = llvm.extractvalue %0[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %2 = llvm.extractvalue %0[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %3 = llvm.extractvalue %0[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %4 = llvm.extractvalue %0[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %5 = llvm.extractvalue %0[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %6 = llvm.load %arg1 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %7 = llvm.extractvalue %6[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %8 = llvm.extractvalue %6[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %9 = llvm.extractvalue %6[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.extractvalue %6[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.extractvalue %6[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    llvm.call @top(%1, %2, %3, %4, %5, %7, %8, %9, %10, %11) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
    llvm.return
  }
  llvm.func @hcl_probe(i64, i64, i64, i64) attributes {sym_visibility = "private"}
}
// ----- output
// ----- unit {"defines": ["Stage_B"], "entry": false, "externals": ["hcl_probe"], "file": "", "light": true, "name": "Stage_B"}
; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

declare void @hcl_probe(i64, i64, i64, i64)

; Function Attrs: noinline optnone
define void @Stage_B(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, ptr %5, ptr %6, i64 %7, i64 %8, i64 %9) #0 {
  %11 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %5, 0
  %12 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %11, ptr %6, 1
  %13 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %12, i64 %7, 2
  %14 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %13, i64 %8, 3, 0
  %15 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %14, i64 %9, 4, 0
  %16 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %0, 0
  %17 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %16, ptr %1, 1
  %18 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %17, i64 %2, 2
  %19 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %18, i64 %3, 3, 0
  %20 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %19, i64 %4, 4, 0
  br label %21

21:                                               ; preds = %24, %10
  %22 = phi i64 [ %33, %24 ], [ 0, %10 ]
  %23 = icmp slt i64 %22, 4
  br i1 %23, label %24, label %34

24:                                               ; preds = %21
  %25 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 1
  %26 = getelementptr inbounds nuw i32, ptr %25, i64 %22
  %27 = load i32, ptr %26, align 4
  %28 = add i32 %27, 1
  %29 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 1
  %30 = ptrtoint ptr %29 to i64
  call void @hcl_probe(i64 0, i64 4, i64 %22, i64 %30)
  %31 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 1
  %32 = getelementptr inbounds nuw i32, ptr %31, i64 %22
  store i32 %28, ptr %32, align 4
  %33 = add i64 %22, 1
  br label %21

34:                                               ; preds = %21
  ret void
}

attributes #0 = { noinline optnone }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
// ----- unit {"defines": ["Stage_C"], "entry": false, "externals": ["hcl_probe"], "file": "", "light": true, "name": "Stage_C"}
; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

declare void @hcl_probe(i64, i64, i64, i64)

; Function Attrs: noinline optnone
define void @Stage_C(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, ptr %5, ptr %6, i64 %7, i64 %8, i64 %9) #0 {
  %11 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %5, 0
  %12 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %11, ptr %6, 1
  %13 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %12, i64 %7, 2
  %14 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %13, i64 %8, 3, 0
  %15 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %14, i64 %9, 4, 0
  %16 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %0, 0
  %17 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %16, ptr %1, 1
  %18 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %17, i64 %2, 2
  %19 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %18, i64 %3, 3, 0
  %20 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %19, i64 %4, 4, 0
  br label %21

21:                                               ; preds = %24, %10
  %22 = phi i64 [ %33, %24 ], [ 0, %10 ]
  %23 = icmp slt i64 %22, 4
  br i1 %23, label %24, label %34

24:                                               ; preds = %21
  %25 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 1
  %26 = ptrtoint ptr %25 to i64
  call void @hcl_probe(i64 1, i64 5, i64 %22, i64 %26)
  %27 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 1
  %28 = getelementptr inbounds nuw i32, ptr %27, i64 %22
  %29 = load i32, ptr %28, align 4
  %30 = mul i32 %29, 2
  %31 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 1
  %32 = getelementptr inbounds nuw i32, ptr %31, i64 %22
  store i32 %30, ptr %32, align 4
  %33 = add i64 %22, 1
  br label %21

34:                                               ; preds = %21
  ret void
}

attributes #0 = { noinline optnone }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
// ----- unit {"defines": ["Stage_D"], "entry": false, "externals": [], "file": "", "light": true, "name": "Stage_D"}
; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

; Function Attrs: noinline optnone
define void @Stage_D(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, ptr %5, ptr %6, i64 %7, i64 %8, i64 %9) #0 {
  %11 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %5, 0
  %12 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %11, ptr %6, 1
  %13 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %12, i64 %7, 2
  %14 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %13, i64 %8, 3, 0
  %15 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %14, i64 %9, 4, 0
  %16 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %0, 0
  %17 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %16, ptr %1, 1
  %18 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %17, i64 %2, 2
  %19 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %18, i64 %3, 3, 0
  %20 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %19, i64 %4, 4, 0
  br label %21

21:                                               ; preds = %24, %10
  %22 = phi i64 [ %31, %24 ], [ 0, %10 ]
  %23 = icmp slt i64 %22, 4
  br i1 %23, label %24, label %32

24:                                               ; preds = %21
  %25 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 1
  %26 = getelementptr inbounds nuw i32, ptr %25, i64 %22
  %27 = load i32, ptr %26, align 4
  %28 = sub i32 %27, 3
  %29 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 1
  %30 = getelementptr inbounds nuw i32, ptr %29, i64 %22
  store i32 %28, ptr %30, align 4
  %31 = add i64 %22, 1
  br label %21

32:                                               ; preds = %21
  ret void
}

attributes #0 = { noinline optnone }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
// ----- unit {"defines": ["top"], "entry": false, "externals": ["calloc", "free", "Stage_B", "Stage_C", "Stage_D", "hcl_probe"], "file": "", "light": true, "name": "top"}
; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

declare ptr @calloc(i64, i64)

declare void @free(ptr)

define internal ptr @_mlir_memref_to_llvm_alloc(i64 %0) {
  %2 = call ptr @calloc(i64 1, i64 %0)
  ret ptr %2
}

define internal void @_mlir_memref_to_llvm_free(ptr %0) {
  call void @free(ptr %0)
  ret void
}

declare void @Stage_B(ptr, ptr, i64, i64, i64, ptr, ptr, i64, i64, i64)

declare void @Stage_C(ptr, ptr, i64, i64, i64, ptr, ptr, i64, i64, i64)

declare void @Stage_D(ptr, ptr, i64, i64, i64, ptr, ptr, i64, i64, i64)

declare void @hcl_probe(i64, i64, i64, i64)

; Function Attrs: noinline optnone
define void @top(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, ptr %5, ptr %6, i64 %7, i64 %8, i64 %9) #0 {
  %11 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %5, 0
  %12 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %11, ptr %6, 1
  %13 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %12, i64 %7, 2
  %14 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %13, i64 %8, 3, 0
  %15 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %14, i64 %9, 4, 0
  %16 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %0, 0
  %17 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %16, ptr %1, 1
  %18 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %17, i64 %2, 2
  %19 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %18, i64 %3, 3, 0
  %20 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %19, i64 %4, 4, 0
  %21 = call ptr @_mlir_memref_to_llvm_alloc(i64 16)
  %22 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %21, 0
  %23 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %22, ptr %21, 1
  %24 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %23, i64 0, 2
  %25 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %24, i64 4, 3, 0
  %26 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %25, i64 1, 4, 0
  %27 = call ptr @_mlir_memref_to_llvm_alloc(i64 16)
  %28 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } poison, ptr %27, 0
  %29 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %28, ptr %27, 1
  %30 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %29, i64 0, 2
  %31 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %30, i64 4, 3, 0
  %32 = insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %31, i64 1, 4, 0
  %33 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 1
  %34 = ptrtoint ptr %33 to i64
  %35 = ptrtoint ptr %21 to i64
  call void @hcl_probe(i64 0, i64 0, i64 0, i64 %34)
  call void @hcl_probe(i64 0, i64 0, i64 1, i64 %35)
  %36 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 0
  %37 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 1
  %38 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 2
  %39 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 3, 0
  %40 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %20, 4, 0
  %41 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 0
  %42 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 1
  %43 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 2
  %44 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 3, 0
  %45 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 4, 0
  call void @Stage_B(ptr %36, ptr %37, i64 %38, i64 %39, i64 %40, ptr %41, ptr %42, i64 %43, i64 %44, i64 %45)
  call void @hcl_probe(i64 0, i64 1, i64 0, i64 %34)
  call void @hcl_probe(i64 0, i64 1, i64 1, i64 %35)
  %46 = ptrtoint ptr %27 to i64
  call void @hcl_probe(i64 1, i64 0, i64 0, i64 %35)
  call void @hcl_probe(i64 1, i64 0, i64 1, i64 %46)
  %47 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 0
  %48 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 1
  %49 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 2
  %50 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 3, 0
  %51 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %26, 4, 0
  %52 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 0
  %53 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 1
  %54 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 2
  %55 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 3, 0
  %56 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 4, 0
  call void @Stage_C(ptr %47, ptr %48, i64 %49, i64 %50, i64 %51, ptr %52, ptr %53, i64 %54, i64 %55, i64 %56)
  call void @hcl_probe(i64 1, i64 1, i64 0, i64 %35)
  call void @hcl_probe(i64 1, i64 1, i64 1, i64 %46)
  %57 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 1
  %58 = ptrtoint ptr %57 to i64
  call void @hcl_probe(i64 2, i64 0, i64 0, i64 %46)
  call void @hcl_probe(i64 2, i64 0, i64 1, i64 %58)
  %59 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 0
  %60 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 1
  %61 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 2
  %62 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 3, 0
  %63 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %32, 4, 0
  %64 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 0
  %65 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 1
  %66 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 2
  %67 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 3, 0
  %68 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %15, 4, 0
  call void @Stage_D(ptr %59, ptr %60, i64 %61, i64 %62, i64 %63, ptr %64, ptr %65, i64 %66, i64 %67, i64 %68)
  call void @hcl_probe(i64 2, i64 1, i64 0, i64 %46)
  call void @hcl_probe(i64 2, i64 1, i64 1, i64 %58)
  call void @_mlir_memref_to_llvm_free(ptr %21)
  call void @_mlir_memref_to_llvm_free(ptr %27)
  ret void
}

attributes #0 = { noinline optnone }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
// ----- unit {"defines": ["_mlir_ciface_top"], "entry": true, "externals": ["top"], "file": "", "light": true, "name": "_mlir_ciface_top"}
; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

declare void @top(ptr, ptr, i64, i64, i64, ptr, ptr, i64, i64, i64)

; Function Attrs: noinline optnone
define void @_mlir_ciface_top(ptr %0, ptr %1) #0 {
  %3 = load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %0, align 8
  %4 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %3, 0
  %5 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %3, 1
  %6 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %3, 2
  %7 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %3, 3, 0
  %8 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %3, 4, 0
  %9 = load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %1, align 8
  %10 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %9, 0
  %11 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %9, 1
  %12 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %9, 2
  %13 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %9, 3, 0
  %14 = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %9, 4, 0
  call void @top(ptr %4, ptr %5, i64 %6, i64 %7, i64 %8, ptr %10, ptr %11, i64 %12, i64 %13, i64 %14)
  ret void
}

attributes #0 = { noinline optnone }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
