	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_remember_state
	.cfi_rel_offset %rbp, 8
	.cfi_remember_state
	push %rbx
	.cfi_restore_state
	nopw 0x0(%rax,%rax,1)
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
