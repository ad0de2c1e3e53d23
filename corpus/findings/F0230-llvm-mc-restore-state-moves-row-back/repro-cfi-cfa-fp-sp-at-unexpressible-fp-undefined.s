	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nop
	.cfi_def_cfa_offset 29784
	.cfi_remember_state
	.cfi_def_cfa_register %rbp
	.cfi_rel_offset %rbp, -18640
	.cfi_undefined %rbp
	push %rbx
	.cfi_restore %rbp
	.cfi_restore_state
	.cfi_endproc
	.size f0, .-f0
