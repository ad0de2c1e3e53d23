	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nopw 0x0(%rax,%rax,1)
	.cfi_def_cfa_offset 58
	.cfi_remember_state
	.cfi_def_cfa_register %rbp
	pop %rbx
	.cfi_rel_offset %rbp, -32
	.cfi_restore_state
	.cfi_endproc
	.size f0, .-f0
