	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	nop
	.cfi_def_cfa_register x29
	sub sp, sp, #32
	.cfi_def_cfa_register sp
	.cfi_remember_state
	sub sp, sp, #32
	.cfi_restore_state
	ldp x29, x30, [sp], 16
	.cfi_endproc
	.size f0, .-f0
