	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	mov %rax, 0x12345678(%rsp)
	.cfi_adjust_cfa_offset 272
	.cfi_remember_state
	.cfi_def_cfa_register %rbp
	.cfi_def_cfa_offset -8
	nopw 0x0(%rax,%rax,1)
	.cfi_def_cfa_register %rsp
	.cfi_restore_state
	.cfi_def_cfa_register %rbp
	.cfi_endproc
	.size f0, .-f0
