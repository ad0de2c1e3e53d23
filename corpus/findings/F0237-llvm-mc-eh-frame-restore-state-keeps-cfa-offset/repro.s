	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nop
	.cfi_def_cfa_register %rbp
	.cfi_remember_state
	.cfi_def_cfa_offset -296
	.cfi_restore_state
	.cfi_undefined %rbp
	.cfi_adjust_cfa_offset 48
	lea 8(%rsp), %r10
	.cfi_endproc
	.size f0, .-f0
