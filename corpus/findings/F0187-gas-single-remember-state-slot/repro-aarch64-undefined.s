	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_remember_state
	.cfi_undefined x30
	mov x9, sp
	.cfi_remember_state
	.cfi_restore_state
	stp x29, x30, [sp, -16]!
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
