	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_remember_state
	.cfi_negate_ra_state
	.cfi_remember_state
	ldp x29, x30, [sp], 16
	.cfi_restore_state
	stp x29, x30, [sp, -16]!
	.cfi_restore_state
	add sp, sp, #32
	.cfi_endproc
	.size f0, .-f0
