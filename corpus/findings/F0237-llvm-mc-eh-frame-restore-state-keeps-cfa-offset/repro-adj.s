	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nop
	.cfi_def_cfa_offset 16
	.cfi_remember_state
	.cfi_def_cfa_offset 32
	nop
	.cfi_restore_state
	.cfi_adjust_cfa_offset 8
	nop
	.cfi_endproc
	.size f0, .-f0
