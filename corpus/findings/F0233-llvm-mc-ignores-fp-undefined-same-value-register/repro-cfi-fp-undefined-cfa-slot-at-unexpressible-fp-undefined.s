	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_offset %rbp, 56
	.cfi_undefined %rbp
	nop
	.cfi_endproc
	.size f0, .-f0
