	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_remember_state
	nop
	.cfi_restore_state
	nop
	.cfi_remember_state
	nop
	.cfi_endproc
	.size f0, .-f0
