	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	xor %eax, %eax
	.cfi_def_cfa_offset 19456
	.cfi_def_cfa_register %rbp
	pop %rbx
	.cfi_endproc
	.size f0, .-f0
