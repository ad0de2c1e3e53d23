	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_offset %rip, 80427120
	nop
	.cfi_endproc
	.size f0, .-f0
