	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_def_cfa %rbp, -7976
	nop
	.cfi_def_cfa %rsp, 31504
	.cfi_remember_state
	nop
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
