	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	mov %rax, 0x12345678(%rsp)
	.cfi_def_cfa_register %rbp
	.cfi_remember_state
	.cfi_def_cfa_register %rsp
	.cfi_offset %rip, 64
	sub $16, %rsp
	.cfi_adjust_cfa_offset 56
	.cfi_restore_state
	.cfi_endproc
	.size f0, .-f0
