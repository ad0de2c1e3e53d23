	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_offset x30, 0
	mov x9, sp
	.cfi_offset x30, 30200
	.cfi_remember_state
	mov x29, sp
	.cfi_restore_state
	nop
	.cfi_endproc
	.size f0, .-f0
