	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_register %rbp, %r12
	.cfi_register %rip, %r15
	nop
	.cfi_endproc
	.size f0, .-f0
