# AArch64 (assemble with -EB for aarch64-be): f0 CFA on FP, f1 CFA on SP, f2 the same with x29 undefined
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nop
	.cfi_def_cfa_offset 16
	.cfi_def_cfa_register x29
	stp x29, x30, [sp, -16]!
	.cfi_endproc
	.size f0, .-f0
	.globl f1
	.type f1, @function
f1:
	.cfi_startproc
	str x19, [sp, 8]
	.cfi_def_cfa_offset 8
	.cfi_def_cfa_register sp
	nop
	.cfi_endproc
	.size f1, .-f1
	.globl f2
	.type f2, @function
f2:
	.cfi_startproc
	stp x29, x30, [sp, -16]!
	.cfi_adjust_cfa_offset 8
	.cfi_undefined x29
	.cfi_def_cfa_register sp
	nop
	.cfi_endproc
	.size f2, .-f2
