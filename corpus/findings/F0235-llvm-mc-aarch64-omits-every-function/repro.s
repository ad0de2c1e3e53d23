	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	stp x29, x30, [sp, -16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov x29, sp
	ldp x29, x30, [sp], 16
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size f0, .-f0
