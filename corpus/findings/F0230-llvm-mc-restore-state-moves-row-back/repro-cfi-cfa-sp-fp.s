	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	sub $16, %rsp
	.cfi_def_cfa_offset -301930640
	.cfi_remember_state
	nop
	.cfi_adjust_cfa_offset 109681536
	.cfi_restore_state
	.cfi_def_cfa %rbp, 12
	.cfi_endproc
	.size f0, .-f0
