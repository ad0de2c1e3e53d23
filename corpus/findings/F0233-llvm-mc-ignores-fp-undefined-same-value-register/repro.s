	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_rel_offset %rbp, -16
	.cfi_same_value %rbp
	nop
	.cfi_endproc
	.size f0, .-f0
