	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_register %rbp, %r10
	.cfi_same_value %rip
	nop
	.cfi_endproc
	.size f0, .-f0
