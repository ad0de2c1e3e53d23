	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_offset x30, 40
	str x19, [sp, 8]
	.cfi_rel_offset x30, 64
	.cfi_remember_state
	ldp x29, x30, [sp], 16
	.cfi_restore_state
	.cfi_undefined x29
	nop
	.cfi_endproc
	.size f0, .-f0
