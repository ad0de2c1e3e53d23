# AArch64 (assemble with -EB for aarch64-be): .cfi_def_cfa x29, 33 then .cfi_def_cfa_register x29 at the same address (x29 undefined: the function should have been left out)
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	mov x9, sp
	.cfi_def_cfa x29, 33
	.cfi_def_cfa_register x29
	.cfi_undefined x29
	nop
	.cfi_endproc
	.size f0, .-f0
