	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_offset %rbp, -8
	.cfi_register %rbp, %r10
	nop
	.cfi_endproc
	.size f0, .-f0
