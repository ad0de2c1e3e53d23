	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_remember_state
	.cfi_rel_offset %r14, -32
	.cfi_remember_state
	nopr
	.cfi_restore_state
	.fill 128, 2, 0x0700
	.cfi_restore_state
	nopr
	.cfi_endproc
	.size f0, .-f0
