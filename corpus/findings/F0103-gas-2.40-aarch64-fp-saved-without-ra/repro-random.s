# AArch64 (assemble with -EB for aarch64-be), minimized random functions: x29 saved, x30 never
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_offset x29, 405232872
	nop
	.cfi_endproc
	.size f0, .-f0
	.globl f1
	.type f1, @function
f1:
	.cfi_startproc
	.cfi_offset x29, 8
	.cfi_undefined x29
	nop
	.cfi_endproc
	.size f1, .-f1
	.globl f2
	.type f2, @function
f2:
	.cfi_startproc
	.cfi_undefined x30
	.cfi_offset x29, 320527072
	nop
	.cfi_endproc
	.size f2, .-f2
