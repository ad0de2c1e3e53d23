	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nopw 0x0(%rax,%rax,1)
	.cfi_def_cfa %rbp, -32
	.cfi_remember_state
	mov %rax, 0x12345678(%rsp)
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
