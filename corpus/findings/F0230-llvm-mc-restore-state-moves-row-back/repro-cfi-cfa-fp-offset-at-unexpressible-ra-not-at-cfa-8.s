	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	mov %rsp, %rbp
	.cfi_def_cfa_register %rbp
	.cfi_remember_state
	.cfi_def_cfa_offset 16
	.cfi_same_value %rip
	nop
	.cfi_offset %rbp, -20760
	.cfi_restore_state
	.cfi_endproc
	.size f0, .-f0
