	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_offset %rbp, 40
	lea 8(%rsp), %r10
	.cfi_offset %rbp, -460457760
	.cfi_remember_state
	mov %rsp, %rbp
	.cfi_restore_state
	lea 8(%rsp), %r10
	.cfi_endproc
	.size f0, .-f0
